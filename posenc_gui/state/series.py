"""Every array a tab shows as strict JSON: ``posenc-gui values`` prints it under ``"series"``.

The arrays are a panel's ``data()``, ``{view: {name: Series(values, label, unit)}}``, the very
arrays the CSV and NumPy exports write; this module reads them and writes nothing. A series
becomes ``{"label": ..., "unit": ..., "values": ...}`` with its values as nested lists of the
array's shape (a number stays a number). A view that records nothing is left out, as the CSV
leaves it out.

Non-finite entries follow the app's one convention (:func:`posenc_gui.state.model.json_values`):
each is ``null`` and the series gets a sibling ``"values_undefined"`` with the reason (the
tab's declared reason for that series name, else :data:`~posenc_gui.state.model.UNDEFINED`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from posenc_gui.state.model import UNDEFINED, json_values


class SeriesLike(Protocol):
    """What a view records for one array (``posenc_gui.widgets.views.Series``)."""

    @property
    def values(self) -> Any: ...
    @property
    def label(self) -> str: ...
    @property
    def unit(self) -> str: ...


def _plain(values: Any) -> Any:
    """Python numbers in nested lists (complex numbers as ``[re, im]``)."""
    arr = np.asarray(values)
    if np.iscomplexobj(arr):
        arr = np.stack([arr.real, arr.imag], axis=-1)
    return arr.tolist()


def series_json(
    data: Mapping[str, Mapping[str, SeriesLike]], reasons: Mapping[str, str] | None = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """``data`` (``{view: {name: Series}}``) as ``{view: {name: {"label", "unit", "values"}}}``,
    strict JSON data (see the module's docstring); ``reasons`` by series name."""
    reasons = reasons or {}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for view, series in data.items():
        if not series:
            continue
        out[view] = {
            name: json_values(
                {"label": s.label, "unit": s.unit, "values": _plain(s.values)},
                {"values": reasons.get(name, UNDEFINED)},
            )
            for name, s in series.items()
        }
    return out
