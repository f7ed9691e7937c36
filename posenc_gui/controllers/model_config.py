"""File ▸ Open model config…: a Hugging Face-style ``config.json`` shown on the long-context tab.

The file goes through the same reader as ``--config FILE`` on the command line
(:func:`posenc_gui.state.context.read_config_values`); a config that cannot be used is refused
with its message (naming the field) and changes nothing. A usable one sets every parameter of
the ``context`` tab (preset ``custom``) in one update and brings that tab to the front.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu

from posenc_gui.controllers.common import WindowParts, add_action, ask_open_path, reason
from posenc_gui.state import ParamError
from posenc_gui.state.context import read_config_values
from posenc_gui.state.model_config import ConfigError
from posenc_gui.state.registry import TAB_IDS

CONFIG_FILTER = "Model configs (*.json);;All files (*)"
#: The tab a model config is shown on.
TAB = "context"


class ModelConfigController(QObject):
    """Opening a model's ``config.json`` into the long-context tab."""

    def __init__(self, parts: WindowParts) -> None:
        super().__init__(parts.dialog_parent())
        self._parts = parts

    def build_menu(self, menu: QMenu) -> None:
        """File ▸ Open model config…"""
        self.open_action = add_action(
            self, menu, "Open &model config…", "open_model_config_action", None,
            self.open_dialog,
            tip="Show a model's config.json (rope_theta, head size, rope_scaling) on the "
            "Long context tab",
        )  # fmt: skip

    def open_dialog(self) -> None:
        """File ▸ Open model config…"""
        path = ask_open_path(self._parts.dialog_parent(), "Open model config", CONFIG_FILTER)
        if path is not None:
            self.open(path)

    def open(self, path: str | Path) -> bool:
        """Show model config ``path`` on the long-context tab; refused → nothing changes."""
        target = Path(path)
        try:
            values = read_config_values(target)
            self._parts.session.state(TAB).update(values)
        except (ConfigError, ParamError, OSError) as err:
            self._parts.messages.error(
                "Model config not opened",
                f"“{target.name}” was not opened: {reason(err)}",
                "Nothing was changed.",
            )
            return False
        self._parts.tabs.setCurrentIndex(TAB_IDS.index(TAB))
        self._parts.messages.show(f"Opened model config {target}")
        return True
