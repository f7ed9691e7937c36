"""The tabs, in display order: one explicit entry each (Qt-free; the command line reads it).

Adding a tab = a model module in ``posenc_gui.state`` (defining ``MODEL``), a panel module in
``posenc_gui.panels`` (defining ``PANEL``) and one :class:`TabEntry` in :data:`TABS`. Modules are
imported on first use, so asking for one tab's parameters imports only that tab (and no torch).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from posenc_gui.state.model import TabModel
from posenc_gui.state.params import ParamError


@dataclass(frozen=True)
class TabEntry:
    """One tab: its id (``--tab``, settings, sessions) and where its model and panel live."""

    id: str
    model_module: str
    panel_module: str

    def model(self) -> type[TabModel]:
        """The tab's model class (imports the model module, never Qt or torch)."""
        module = importlib.import_module(self.model_module)
        model: type[TabModel] = module.MODEL
        if model.id != self.id:
            raise RuntimeError(f"{self.model_module}.MODEL has id {model.id!r}, not {self.id!r}")
        return model

    @property
    def title(self) -> str:
        """The tab's title (the model's)."""
        return self.model().title

    @property
    def short_title(self) -> str:
        """The tab's label in the tab bar (the model's short title)."""
        return self.model().short_title


def _entry(tab_id: str) -> TabEntry:
    return TabEntry(tab_id, f"posenc_gui.state.{tab_id}", f"posenc_gui.panels.{tab_id}")


#: Every tab, in display order.
TABS: tuple[TabEntry, ...] = (
    _entry("sine"),
    _entry("heatmap"),
    _entry("rotation"),
    _entry("rope"),
    _entry("alibi"),
    _entry("encodings"),
    _entry("context"),
    _entry("precision"),
)
#: Tab ids, short and stable, in display order.
TAB_IDS: tuple[str, ...] = tuple(e.id for e in TABS)


def entry(tab_id: str) -> TabEntry:
    """The entry of tab ``tab_id``; :class:`ParamError` listing the known ids otherwise."""
    for e in TABS:
        if e.id == tab_id:
            return e
    raise ParamError(f"unknown tab {tab_id[:40]!r}; known tabs: {', '.join(TAB_IDS)}")


def get_model(tab_id: str) -> type[TabModel]:
    """The model of tab ``tab_id``; :class:`ParamError` listing the known ids otherwise."""
    return entry(tab_id).model()


def all_models() -> dict[str, type[TabModel]]:
    """Every tab's model, in display order."""
    return {e.id: e.model() for e in TABS}
