"""Cold-start probe, run as a fresh child process by ``benchmarks/bench.py`` (not by hand).

    python benchmarks/startup_probe.py torch   # {"torch_import_s": ...}
    python benchmarks/startup_probe.py gui     # {"first_paint_s": ..., "interactive_s": ...}

Every figure is seconds since the first statement of this file (``T0`` below, taken before any
other import): the interpreter's own start-up (~20-40 ms, before ``T0``) is not in it; the parent
reports the whole process wall time beside it.

``gui`` does what ``posenc_gui.app.run_gui`` does (application, ``MainWindow``, ``show()``,
``processEvents()``, ``load_panels_later()``, event loop) on the offscreen platform and records:

* ``first_paint_s``: the main window's first ``QEvent.Paint`` (an event filter on the window);
* ``interactive_s``: the end of the first paint pass of the first visible tab panel (a widget
  named ``panel_<tab id>``; its first ``Paint`` event, caught by a filter installed on the panel
  as soon as ``load_panels`` has built it, then a zero-delay timer that fires once the pass is
  done). The filter watches that one widget only: an application-wide Python filter would see
  every event of the start-up (~4,000) and add ~15 ms of its own to the figure. A 5 ms poll for
  that panel being visible is the fallback if its paint was not seen.

The child prints one JSON line and leaves with ``os._exit`` (no settings written, no teardown).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

#: Give up (and report an error) after this many seconds.
PROBE_TIMEOUT_S = 30.0
POLL_MS = 5
#: After an exception in a slot, wait this long for a panel before giving up.
ERROR_GRACE_S = 3.0


def since_start() -> float:
    """Seconds since ``T0``."""
    return time.perf_counter() - T0


def finish(payload: dict[str, object]) -> None:
    """Print the result as one JSON line and leave at once."""
    import json
    import os
    import sys

    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()
    os._exit(0)


def probe_torch() -> None:
    """Time ``import torch`` alone."""
    import torch

    done = since_start()
    finish({"torch_import_s": done, "torch": torch.__version__})


def probe_gui() -> None:
    """Time the first window paint and the first painted, refreshed panel (see module doc)."""
    import os
    import sys
    from typing import Any

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QWidget

    from posenc_gui.app import create_application
    from posenc_gui.main_window import MainWindow

    marks: dict[str, object] = {"imports_s": since_start()}
    panel: list[QWidget] = []  # the panel whose first paint was seen
    error_at: list[float] = []  # when exceptions were raised in slots

    def is_panel(obj: QObject) -> bool:
        return isinstance(obj, QWidget) and obj.objectName().startswith("panel_")

    def done() -> None:
        marks["interactive_s"] = since_start()
        finish(marks)

    class PaintProbe(QObject):
        """Records the first window paint, then the first paint of a tab panel."""

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() != QEvent.Type.Paint:
                return False
            if "first_paint_s" not in marks and obj is window:
                marks["first_paint_s"] = since_start()
            elif "panel_paint_s" not in marks and isinstance(obj, QWidget) and is_panel(obj):
                marks["panel_paint_s"] = since_start()
                marks["panel"] = obj.objectName()
                panel.append(obj)
                QTimer.singleShot(0, done)  # after the rest of this paint pass
            return False

    def poll() -> None:
        if since_start() > PROBE_TIMEOUT_S:
            marks["error"] = f"no painted panel after {PROBE_TIMEOUT_S:.0f} s"
            finish(marks)
        if not panel and error_at and since_start() > error_at[0] + ERROR_GRACE_S:
            marks["error"] = "an exception in a slot, and no painted panel after it"
            finish(marks)
        if panel:
            return
        for w in window.findChildren(QWidget):
            if is_panel(w) and w.isVisible():  # visible but its paint was missed: repaint it
                w.update()
                return

    def record_error(kind: type[BaseException], err: BaseException, tb: Any) -> None:
        errors = marks.setdefault("slot_errors", [])
        assert isinstance(errors, list)
        errors.append(f"{kind.__name__}: {err}")
        error_at.append(since_start())
        sys.__excepthook__(kind, err, tb)

    sys.excepthook = record_error  # PySide reports exceptions in slots through this hook
    app = create_application()
    marks["app_s"] = since_start()
    window = MainWindow()
    marks["window_s"] = since_start()
    probe = PaintProbe()
    window.installEventFilter(probe)
    window.show()
    app.processEvents()  # run_gui: the window paints before torch is imported
    marks.setdefault("first_paint_s", None)
    load = window.load_panels

    def load_then_watch() -> None:
        load()
        for w in window.panels.values():  # built, not painted yet: watch it alone
            w.installEventFilter(probe)

    window.load_panels = load_then_watch  # type: ignore[method-assign]
    window.load_panels_later()
    timer = QTimer()
    timer.setInterval(POLL_MS)
    timer.timeout.connect(poll)
    timer.start()
    try:
        app.exec()
    except Exception as err:  # raised in a callable slot (load_panels): no panel will come
        marks["error"] = f"{type(err).__name__}: {err}"
        finish(marks)
    marks["error"] = "event loop left before a panel painted"
    finish(marks)


def main() -> None:
    import sys

    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "torch":
        probe_torch()
    elif mode == "gui":
        probe_gui()
    else:
        sys.exit("usage: startup_probe.py torch|gui")


if __name__ == "__main__":
    main()
