"""Views with declared inputs: the unit a panel is made of.

A *view* is one part of a tab that shows something: a plot, an image, a read-out block. It
declares its **inputs** — parameter names, names of derived quantities, and free *event* names
such as ``"x_range"`` for a view that depends on how far the user zoomed — and it is refreshed
only when one of them changed. What a view shows is recorded as named arrays
(:meth:`View.data`), so export and "show the code" can walk every view of every tab the same way.

*Derived* quantities (a read-out group of the tab's model, a tensor several views plot) declare
their inputs too and are computed at most once per change, on first use.

During a refresh a view sees a :class:`Context`: reading a parameter or a derived quantity it did
not declare raises :class:`KeyError`, so a forgotten input is a failing test, not a stale plot.
This module holds the bookkeeping only (names, caches, arrays); the Qt side — scheduling,
styling, layout — is :mod:`posenc_gui.panels.base`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from posenc_gui.state import Value
from posenc_gui.state.model import Inputs

if TYPE_CHECKING:
    from posenc_gui.widgets.style import Style


@dataclass(frozen=True)
class Series:
    """One array a view shows, with what it means: ``label`` and ``unit`` (may be empty)."""

    values: np.ndarray
    label: str
    unit: str = ""


@dataclass
class Derived:
    """A quantity computed from declared inputs, cached until one of them changes."""

    name: str
    inputs: frozenset[str]  # parameter names (derived inputs are expanded to their parameters)
    compute: Callable[[Context], Any]
    key: tuple[Any, ...] | None = None
    value: Any = None
    compute_count: int = 0


class View:
    """A named part of a panel that refreshes only when one of its inputs changed."""

    def __init__(
        self,
        name: str,
        widget: object,
        inputs: Iterable[str],
        refresh: Callable[[Context], None],
    ) -> None:
        self.name = name
        self.widget = widget
        self.inputs = frozenset(inputs)
        self._refresh = refresh
        #: Parameters this view reads, directly or through the derived quantities it uses.
        self.params: frozenset[str] = frozenset()
        self.refresh_count = 0
        self._data: dict[str, Series] = {}

    def __repr__(self) -> str:
        return f"View({self.name!r}, inputs={sorted(self.inputs)})"

    def run(self, ctx: Context) -> None:
        """Refresh now (the panel calls this when an input changed)."""
        self._data = {}
        self._refresh(ctx)
        self.refresh_count += 1

    def record(self, name: str, values: object, label: str, unit: str = "") -> None:
        """Remember an array (or number) this view shows under ``name``."""
        arr = np.asarray(values)
        self._data[name] = Series(arr, label, unit)

    def data(self) -> dict[str, Series]:
        """The arrays this view shows now, by name."""
        return dict(self._data)


class Context:
    """What one refresh (of a view or a derived quantity) may read.

    ``ctx.values`` holds only the declared parameters; ``ctx[name]`` returns a declared derived
    quantity (computed once per change); ``ctx.style`` is the current style.
    """

    def __init__(
        self,
        owner: str,
        values: Mapping[str, Value],
        declared: frozenset[str],
        derived: Mapping[str, Derived],
        style: Style,
        view: View | None = None,
    ) -> None:
        self.owner = owner
        self.values = Inputs(values, declared, owner)
        self._all = values
        self._declared = declared
        self._derived = derived
        self.style = style
        self.view = view

    def __getitem__(self, name: str) -> Any:
        if name not in self._declared:
            raise KeyError(f"{self.owner} uses {name!r} but does not declare it as an input")
        d = self._derived[name]
        key = tuple(repr(self._all[p]) for p in sorted(d.inputs))
        if d.key != key:
            declared = d.inputs | _derived_names(d, self._derived)
            inner = Context(f"derived {name!r}", self._all, declared, self._derived, self.style)
            d.value = d.compute(inner)
            d.key = key
            d.compute_count += 1
        return d.value

    def record(self, name: str, values: object, label: str, unit: str = "") -> None:
        """Record an array the view shows (see :meth:`View.record`)."""
        if self.view is None:
            raise RuntimeError(f"{self.owner} is not a view")
        self.view.record(name, values, label, unit)


def _derived_names(d: Derived, derived: Mapping[str, Derived]) -> frozenset[str]:
    """Derived quantities ``d`` may itself read: those whose parameters are within its own."""
    return frozenset(n for n, other in derived.items() if n != d.name and other.inputs <= d.inputs)


class ViewSet:
    """The views and derived quantities of one panel, and which to refresh after a change."""

    def __init__(self, params: Iterable[str]) -> None:
        self.param_names = frozenset(params)
        self.derived: dict[str, Derived] = {}
        self.views: dict[str, View] = {}
        self.events: set[str] = set()

    def expand(self, names: Iterable[str], owner: str) -> tuple[frozenset[str], frozenset[str]]:
        """(parameters, derived names) behind ``names``; unknown names become event names."""
        params: set[str] = set()
        derived: set[str] = set()
        for n in names:
            if n in self.param_names:
                params.add(n)
            elif n in self.derived:
                derived.add(n)
                params |= self.derived[n].inputs
            else:
                self.events.add(n)
        return frozenset(params), frozenset(derived)

    def add_derived(
        self, name: str, inputs: Iterable[str], compute: Callable[[Context], Any]
    ) -> None:
        """Declare a derived quantity (its inputs: parameters and earlier derived quantities)."""
        if name in self.derived or name in self.param_names:
            raise ValueError(f"{name!r} is declared twice")
        params, _ = self.expand(inputs, f"derived {name!r}")
        self.derived[name] = Derived(name, params, compute)

    def add_view(self, view: View) -> View:
        """Register ``view`` (names must be unique)."""
        if view.name in self.views:
            raise ValueError(f"view {view.name!r} is declared twice")
        view.params, _ = self.expand(view.inputs, f"view {view.name!r}")
        self.views[view.name] = view
        return view

    def affected(self, changed: Iterable[str]) -> list[View]:
        """The views (in declaration order) that read one of ``changed``."""
        names = set(changed)
        return [v for v in self.views.values() if v.params & names or v.inputs & names]

    def context_for(self, view: View, values: Mapping[str, Value], style: Style) -> Context:
        """The restricted context ``view`` refreshes with."""
        declared = view.params | frozenset(n for n in view.inputs if n in self.derived)
        return Context(f"view {view.name!r}", values, declared, self.derived, style, view)
