"""The panel base class: one tab = one state + controls + plots built once and refreshed.

A subclass sets ``model`` (its Qt-free :class:`TabModel`), builds its widgets and plot items
in :meth:`Panel.build` and pushes new arrays into them in :meth:`Panel.refresh`.

Refreshes are coalesced: every state change only arms a zero-delay single-shot timer, so a
slider that emits faster than frames are painted causes one refresh with the latest values,
never a queue of stale ones.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget

from posenc_gui.state import ParamState, TabModel
from posenc_gui.widgets.controls import ControlGroup
from posenc_gui.widgets.plots import configure


class Panel(QWidget):
    """Base of every tab. ``message`` carries user-facing notices (rejected input...)."""

    model: ClassVar[type[TabModel]]
    message = Signal(str)

    def __init__(self, state: ParamState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        configure()
        self.setObjectName(f"panel_{self.model.id}")
        self.state = state if state is not None else ParamState(self.model)
        self.refresh_count = 0
        #: Wall time of the last refresh (seconds), for the benchmark harness and the status bar.
        self.last_refresh_seconds = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh_now)
        self.build()
        self.state.changed.connect(self._on_state_changed)
        self.destroyed.connect(self._disconnect_state)
        self.refresh_now()

    # -- subclass API -----------------------------------------------------------------------
    def build(self) -> None:
        """Create widgets and plot items once."""
        raise NotImplementedError

    def refresh(self) -> None:
        """Push the current state into the plots and labels."""
        raise NotImplementedError

    def controls(self, title: str, *names: str) -> ControlGroup:
        """A group of bound controls for ``names``; rejected input goes to :attr:`message`."""
        group = ControlGroup(title, self.state, on_error=self.message.emit, parent=self)
        group.add_all(*names)
        return group

    def readouts(self) -> dict[str, Any]:
        """The numbers this tab shows (what ``posenc-gui values`` prints)."""
        return self.state.readouts()

    # -- refresh scheduling -----------------------------------------------------------------
    def _on_state_changed(self, name: str, value: object) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _disconnect_state(self, *_: object) -> None:
        self.state.changed.disconnect(self._on_state_changed)

    def refresh_now(self) -> None:
        """Refresh immediately (also cancels a pending coalesced refresh)."""
        self._timer.stop()
        start = time.perf_counter()
        self.refresh()
        self.last_refresh_seconds = time.perf_counter() - start
        self.refresh_count += 1

    def pending(self) -> bool:
        """Whether a coalesced refresh is waiting to run."""
        return self._timer.isActive()
