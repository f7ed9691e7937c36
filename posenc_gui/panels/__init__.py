"""The tabs' Qt panels. ``posenc_gui.panels.ID.PANEL`` is the panel of tab ``ID``."""

from __future__ import annotations

import importlib

from posenc_gui.panels.base import Panel
from posenc_gui.state.registry import TAB_IDS


def get_panel(tab_id: str) -> type[Panel]:
    """The panel class of tab ``tab_id`` (the id must be in ``TAB_IDS``)."""
    if tab_id not in TAB_IDS:
        raise KeyError(tab_id)
    panel: type[Panel] = importlib.import_module(f"posenc_gui.panels.{tab_id}").PANEL
    return panel


def all_panels() -> dict[str, type[Panel]]:
    """Every tab's panel class, in display order."""
    return {tab_id: get_panel(tab_id) for tab_id in TAB_IDS}


__all__ = ["Panel", "all_panels", "get_panel"]
