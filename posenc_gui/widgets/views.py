"""Views with declared inputs: the unit a panel is made of.

A *view* is one part of a tab that shows something: a plot, an image, a read-out block. It
declares its **inputs** — parameter names, names of derived quantities, and free *event* names
such as ``"x_range"`` for a view that depends on how far the user zoomed — and it is refreshed
only when one of them changed. What a view shows is recorded as named arrays
(:meth:`View.data`), so export and "show the code" can walk every view of every tab the same way.

*Derived* quantities (a read-out group of the tab's model, a tensor several views plot) declare
their inputs too and are computed at most once per change, on first use.

Three ways to do less work in a refresh, all kept here rather than in the panels:

- **Memo per refresh.** The views of one refresh share a :class:`Memo`: each derived quantity is
  looked up once (the lookup builds its inputs' key) and the same object is handed to every view,
  to its key and to its refresh.
- **Keys.** A view may declare ``key(ctx)``: what it shows, as a value (numbers, strings, the
  derived quantities it shows). When an input changed but the key (and the style) did not — a
  typed component while the vectors are random, a zoom that keeps the same columns — the view is
  not run: it records the arrays of its last run again (its data stays complete) and touches no
  item, so nothing is set and nothing repaints. Keys compare with :func:`same_key`: arrays by
  identity or content, :class:`Same` by identity only (a cached array whose identity says it is
  unchanged: comparing its content would cost what the key saves).
- **Kept values.** :class:`Kept` holds the last few values a view computed by key, across
  refreshes, for what a derived quantity cannot key (a plot's visible range, its width).

During a refresh a view sees a :class:`Context`: reading a parameter or a derived quantity it did
not declare raises :class:`KeyError`, so a forgotten input is a failing test, not a stale plot.
This module holds the bookkeeping only (names, caches, arrays); the Qt side — scheduling,
styling, layout — is :mod:`posenc_gui.panels.base`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
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


class Same:
    """A key part equal to another ``Same`` holding the very same object (and nothing else).

    For values kept by identity (a cached array handed out again while unchanged): comparing
    their content would cost what the key saves, and numpy arrays have no plain ``==``.
    """

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.obj is self.obj

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Same({type(self.obj).__name__} at {id(self.obj):#x})"


#: Types whose ``==`` is exact and cheap (a list of one of them is compared as a whole).
_PLAIN = frozenset({float, int, str, bool})


def same_key(a: object, b: object) -> bool:
    """Whether two view keys are equal: tuples, lists and dicts item by item, numpy arrays by
    identity or shape, type and content, anything else by ``==``. Values that cannot say
    (a tensor's ``==`` is a tensor) count as different: the view runs, never shows stale data."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _PLAIN:
        return bool(a == b)
    if isinstance(a, tuple | list):
        assert isinstance(b, tuple | list)
        if len(a) != len(b):
            return False
        if a and type(a[0]) in _PLAIN:  # numbers, say (a vector, a row): compared in C first
            try:
                if a != b:  # differs as a whole: differs item by item (arrays would raise)
                    return False
            except (TypeError, ValueError, RuntimeError):
                pass
            kinds = set(map(type, a))
            if len(kinds) == 1 and set(map(type, b)) == kinds:
                return True  # equal, and items of one plain type: equal item by item
        return all(same_key(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(same_key(v, b[k]) for k, v in a.items())
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError, RuntimeError):
        return False


class View:
    """A named part of a panel that refreshes only when one of its inputs changed.

    ``key`` (optional) says what the view shows: when it returns what it returned at the last
    run (with the same style), the view is not run again (see the module's docstring).
    """

    def __init__(
        self,
        name: str,
        widget: object,
        inputs: Iterable[str],
        refresh: Callable[[Context], None],
        key: Callable[[Context], object] | None = None,
    ) -> None:
        self.name = name
        self.widget = widget
        self.inputs = frozenset(inputs)
        self._refresh = refresh
        self._key = key
        #: Parameters this view reads, directly or through the derived quantities it uses.
        self.params: frozenset[str] = frozenset()
        #: Runs of ``refresh`` (a run skipped for an unchanged key does not count).
        self.refresh_count = 0
        #: Runs skipped because the key had not changed.
        self.skip_count = 0
        self._data: dict[str, Series] = {}
        self._shown: tuple[object] | None = None  # (key,) of the last run, None: run next time

    def __repr__(self) -> str:
        return f"View({self.name!r}, inputs={sorted(self.inputs)})"

    def run(self, ctx: Context) -> bool:
        """Refresh now (the panel calls this when an input changed); a view with a key whose
        value did not change keeps what it shows. Whether ``refresh`` ran."""
        if self._key is not None:
            key = (ctx.style, self._key(ctx))
            if self._shown is not None and same_key(self._shown[0], key):
                self.skip_count += 1
                return False
            self._shown = None  # a refresh that raises leaves no key behind
        self._data = {}
        self._refresh(ctx)
        self.refresh_count += 1
        if self._key is not None:
            self._shown = (key,)
        return True

    def forget(self) -> None:
        """Run at the next refresh whatever the key (what the view shows was changed outside
        its refresh)."""
        self._shown = None

    def record(self, name: str, values: object, label: str, unit: str = "") -> None:
        """Remember an array (or number) this view shows under ``name``."""
        arr = np.asarray(values)
        self._data[name] = Series(arr, label, unit)

    def data(self) -> dict[str, Series]:
        """The arrays this view shows now, by name."""
        return dict(self._data)


class Memo:
    """The derived quantities looked up during one refresh of a panel, by name.

    Every view of the refresh sees the same parameter values, so a quantity looked up once
    (its inputs' key built, compared, perhaps computed) is the same for all of them: later
    lookups return it from here. A new refresh starts a new memo.
    """

    __slots__ = ("_found", "lookups", "values")

    def __init__(self, values: Mapping[str, Value]) -> None:
        self.values = values
        self._found: dict[str, Any] = {}
        #: Lookups that reached the derived quantity (its key was built), by name.
        self.lookups: dict[str, int] = {}

    def get(self, name: str, look_up: Callable[[], Any]) -> Any:
        """The value of ``name`` in this refresh (``look_up()`` the first time)."""
        try:
            return self._found[name]
        except KeyError:
            self.lookups[name] = self.lookups.get(name, 0) + 1
            value = self._found[name] = look_up()
            return value


class Shown:
    """Last values by name: :meth:`changed` says whether an item must be set again.

    A view's key skips the whole view; inside a view that runs, this keeps, per name, the value
    an item was last set from (a table's key, a range, a pair of levels). Most of a view's
    items often show the same thing as before (a seed step keeps the plot's range; a mode
    switch keeps the image), and setting one again still costs: pyqtgraph copies the data,
    recomputes its bounds and repaints the item (an image its whole rectangle, a range both
    axes and everything on the plot). Values compare as keys do (:func:`same_key`: arrays by
    content).
    """

    def __init__(self) -> None:
        self._values: dict[str, object] = {}

    def changed(self, name: str, value: object) -> bool:
        """Whether ``value`` differs from what ``name`` showed last (and remember it)."""
        if name in self._values and same_key(self._values[name], value):
            return False
        self._values[name] = value
        return True

    def forget(self, name: str) -> None:
        """The item ``name`` shows something else now: the next :meth:`changed` is True."""
        self._values.pop(name, None)


class Kept:
    """The last few values of a computation, by key, across refreshes.

    A view whose inputs include something a derived quantity cannot declare (its plot's
    visible range, its width in pixels) keys what it computes itself: the value of the last
    key is handed out again while the key stays, and the last ``size`` values are found again
    when a slider is dragged back and forth (the least recently used goes first).
    """

    __slots__ = ("_values", "last_key", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        #: The key of the value handed out last (None: none yet).
        self.last_key: Hashable | None = None

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value kept for ``key``, made by ``make()`` if none is."""
        try:
            value = self._values[key]
            self._values.move_to_end(key)
        except KeyError:
            value = self._values[key] = make()
            if len(self._values) > self.size:
                self._values.popitem(last=False)
        self.last_key = key
        return value

    @property
    def last(self) -> Any:
        """The value handed out last (None: none yet)."""
        return None if self.last_key is None else self._values.get(self.last_key)


class Context:
    """What one refresh (of a view or a derived quantity) may read.

    ``ctx.values`` holds only the declared parameters; ``ctx[name]`` returns a declared derived
    quantity (computed once per change, looked up once per refresh when a :class:`Memo` is
    shared); ``ctx.style`` is the current style.
    """

    def __init__(
        self,
        owner: str,
        values: Mapping[str, Value],
        declared: frozenset[str],
        derived: Mapping[str, Derived],
        style: Style,
        view: View | None = None,
        memo: Memo | None = None,
    ) -> None:
        self.owner = owner
        self.values = Inputs(values, declared, owner)
        self._all = values
        self._declared = declared
        self._derived = derived
        self.style = style
        self.view = view
        self.memo = memo if memo is not None and memo.values is values else Memo(values)

    def __getitem__(self, name: str) -> Any:
        if name not in self._declared:
            raise KeyError(f"{self.owner} uses {name!r} but does not declare it as an input")
        d = self._derived[name]
        return self.memo.get(name, lambda: self._look_up(d))

    def _look_up(self, d: Derived) -> Any:
        key = tuple(repr(self._all[p]) for p in sorted(d.inputs))
        if d.key != key:
            declared = d.inputs | _derived_names(d, self._derived)
            inner = Context(
                f"derived {d.name!r}", self._all, declared, self._derived, self.style,
                memo=self.memo,
            )  # fmt: skip
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

    def context_for(
        self, view: View, values: Mapping[str, Value], style: Style, memo: Memo | None = None
    ) -> Context:
        """The restricted context ``view`` refreshes with; the views of one refresh share
        ``memo`` (made for the same ``values``)."""
        declared = view.params | frozenset(n for n in view.inputs if n in self.derived)
        return Context(f"view {view.name!r}", values, declared, self.derived, style, view, memo)
