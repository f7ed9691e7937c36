"""The tabs, in display order (Qt-free: the command line reads parameters from here).

Each tab ``ID`` has a module ``posenc_gui.state.ID`` defining ``MODEL`` (its :class:`TabModel`)
and a module ``posenc_gui.panels.ID`` defining ``PANEL``. Modules are imported on first use, so
asking for one tab's parameters imports only that tab.
"""

from __future__ import annotations

import importlib

from posenc_gui.state.model import TabModel
from posenc_gui.state.params import ParamError

#: Tab ids, short and stable (used by ``--tab``, settings and sessions), in display order.
TAB_IDS: tuple[str, ...] = ("sine", "heatmap", "rotation", "rope")


def get_model(tab_id: str) -> type[TabModel]:
    """The model of tab ``tab_id``; :class:`ParamError` listing the known ids otherwise."""
    if tab_id not in TAB_IDS:
        raise ParamError(f"unknown tab {tab_id!r}; known tabs: {', '.join(TAB_IDS)}")
    module = importlib.import_module(f"posenc_gui.state.{tab_id}")
    model: type[TabModel] = module.MODEL
    if model.id != tab_id:
        raise RuntimeError(f"posenc_gui.state.{tab_id}.MODEL has id {model.id!r}")
    return model


def all_models() -> dict[str, type[TabModel]]:
    """Every tab's model, in display order."""
    return {tab_id: get_model(tab_id) for tab_id in TAB_IDS}
