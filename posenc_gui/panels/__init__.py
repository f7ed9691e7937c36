"""The tabs' Qt panels. The registry entry of tab ``ID`` names the module defining ``PANEL``."""

from __future__ import annotations

import importlib

from posenc_gui.panels.base import Panel
from posenc_gui.state.registry import TABS, entry


def get_panel(tab_id: str) -> type[Panel]:
    """The panel class of tab ``tab_id`` (imports its module, and torch with it)."""
    e = entry(tab_id)
    panel: type[Panel] = importlib.import_module(e.panel_module).PANEL
    if panel.model.id != tab_id:
        raise RuntimeError(f"{e.panel_module}.PANEL shows tab {panel.model.id!r}")
    return panel


def all_panels() -> dict[str, type[Panel]]:
    """Every tab's panel class, in display order."""
    return {e.id: get_panel(e.id) for e in TABS}


__all__ = ["Panel", "all_panels", "get_panel"]
