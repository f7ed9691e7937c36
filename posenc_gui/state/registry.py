"""The tabs, in display order (Qt-free: the command line reads parameters from here)."""

from __future__ import annotations

from posenc_gui.state.model import TabModel
from posenc_gui.state.params import ParamError
from posenc_gui.state.sine import SineModel

MODELS: dict[str, type[TabModel]] = {m.id: m for m in (SineModel,)}


def get_model(tab_id: str) -> type[TabModel]:
    """The model of tab ``tab_id``; :class:`ParamError` listing the known ids otherwise."""
    try:
        return MODELS[tab_id]
    except KeyError:
        raise ParamError(f"unknown tab {tab_id!r}; known tabs: {', '.join(MODELS)}") from None
