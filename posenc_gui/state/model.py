"""Tab models and the evented state object that every panel mirrors.

A :class:`TabModel` describes one tab without Qt: its id, its parameters, the dynamic limits that
tie parameters together (a pair index below ``dim/2``...) and :meth:`TabModel.readouts`, every
number the tab displays. The panel shows exactly these numbers and ``posenc-gui values`` prints
them, so what is on screen and what the command line reports cannot drift apart.

:class:`ParamState` holds the current values (scalars only, never tensors) and emits
``changed(name, value)`` only when a value really changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from posenc_gui.state.params import Param, ParamError, Value, echo
from posenc_gui.state.signal import Signal

Limits = dict[str, tuple[float | None, float | None]]
Readouts = Mapping[str, Any]


class Inputs(Mapping[str, Value]):
    """The values a computation declared it reads; reading any other raises :class:`KeyError`.

    This keeps declared inputs honest: a read-out group or a view that uses a parameter it did
    not declare fails at once in the tests instead of showing a stale number in the app.
    """

    def __init__(self, values: Mapping[str, Value], names: frozenset[str], owner: str) -> None:
        self._values = values
        self._names = names
        self._owner = owner

    def __getitem__(self, name: str) -> Value:
        if name not in self._names:
            raise KeyError(f"{self._owner} reads {name!r} but does not declare it as an input")
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return (n for n in self._values if n in self._names)

    def __len__(self) -> int:
        return sum(1 for n in self._values if n in self._names)

    def as_float(self, name: str) -> float:
        """A numeric input as float."""
        v = self[name]
        if isinstance(v, str):
            raise TypeError(f"{name} is not numeric")
        return float(v)

    def as_int(self, name: str) -> int:
        """An integer input."""
        return int(self.as_float(name))

    def as_str(self, name: str) -> str:
        """A choice input."""
        return str(self[name])


@dataclass(frozen=True)
class ReadoutGroup:
    """Read-outs that depend on a declared set of parameters only.

    ``compute`` receives an :class:`Inputs` restricted to ``inputs`` and returns JSON-ready
    numbers. A panel recomputes a group only when one of its inputs changed, and a view that
    shows the group refreshes only then.
    """

    name: str
    inputs: tuple[str, ...]
    compute: Callable[[Inputs], dict[str, Any]]

    def __call__(self, values: Mapping[str, Value]) -> dict[str, Any]:
        return self.compute(Inputs(values, frozenset(self.inputs), f"read-outs {self.name!r}"))


def check_span(view: Mapping[str, Any], key: str, lo: float, hi: float, what: str) -> None:
    """Refuse ``view[key]`` (when present) unless it is ``[from, to]``: finite numbers,
    ``from < to``, within ``lo … hi`` (``what`` names that extent) widened by its length on
    either side. A plot never zooms out that far; a range beyond it (±1.7·10³⁰⁸ from an edited
    session) makes the plot library compute with infinities. :class:`ParamError` otherwise."""
    if key not in view:
        return
    got = view[key]
    margin = hi - lo
    low, high = lo - margin, hi + margin
    if (
        isinstance(got, list | tuple)
        and len(got) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in got)
        and all(math.isfinite(x) for x in got)
        and low <= got[0] < got[1] <= high
    ):
        return
    raise ParamError(
        f"'view' {key} must be [from, to] with from < to within {echo(float(low))} … "
        f"{echo(float(high))} ({what} {echo(float(lo))} … {echo(float(hi))}, widened by its "
        f"length either side), got {echo(got)}"
    )


#: The reason given for a non-finite read-out that its model does not explain.
UNDEFINED = "not a finite number"


def json_values(obj: Any, reasons: Mapping[str, str] | None = None) -> Any:
    """``obj`` as strict JSON data: every non-finite float (NaN, ±∞, which JSON has no word
    for) becomes ``null``, and a dict entry holding one (alone or in a list) gets a sibling
    ``"<name>_undefined"`` with the reason from ``reasons`` (else :data:`UNDEFINED`). The
    one convention of the app for undefined quantities."""
    reasons = reasons or {}
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out[k] = json_values(v, reasons)
            if _has_undefined(v):
                out[f"{k}_undefined"] = reasons.get(str(k), UNDEFINED)
        return out
    if isinstance(obj, list | tuple):
        return [json_values(v, reasons) for v in obj]
    return obj


def _has_undefined(v: object) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, list | tuple):
        return any(_has_undefined(x) for x in v)
    return False


class TabModel:
    """Qt-free description of one tab. Subclasses set the class attributes and readouts."""

    id: ClassVar[str]
    title: ClassVar[str]
    #: The tab's label in the tab bar: a word or two, so that eight tabs fit a 1024-px screen.
    #: The full :attr:`title` is the tab's tooltip, accessible name and the window's title.
    short_title: ClassVar[str]
    summary: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]]
    #: The tab's read-outs, in groups with declared inputs (see :meth:`readouts`).
    groups: ClassVar[tuple[ReadoutGroup, ...]] = ()
    #: The tab's figures, in reading order: the ids of the views that are its plots and
    #: read-out blocks (not its controls), one per cell of the plot area. A figure's widget is
    #: named ``figure_<ID>``; it can be enlarged to fill the tab, and ``posenc-gui params``
    #: lists the ids (a test checks that they match the panel's figure widgets).
    figures: ClassVar[tuple[str, ...]] = ()
    #: Figures presented together in presentation mode (F5): ``(figure, companion)`` pairs, e.g.
    #: a plot and its formula block. The companion stands under its figure and is not a step
    #: of its own (see :meth:`stages`); a figure is in one pair at most.
    figure_pairs: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: The numeric parameter that Play (Space) sweeps, looping, and that an animation export
    #: steps through. Every tab declares one (a generic test checks it).
    animated: ClassVar[str]
    #: Why a read-out can be undefined (a NaN in :meth:`readouts`), by name: ``values`` prints
    #: such a read-out as ``null`` with a sibling ``"<name>_undefined": reason`` (see
    #: :func:`posenc_gui.state.model.json_values`).
    undefined: ClassVar[Mapping[str, str]] = {}
    #: Values set when an animation starts (e.g. RoPE's distance lock, so that ``n`` follows
    #: ``m``). Pausing leaves them as they are.
    animation_setup: ClassVar[tuple[tuple[str, Value], ...]] = ()

    @classmethod
    def param(cls, name: str) -> Param:
        """The parameter called ``name``; :class:`ParamError` listing the known names otherwise."""
        for p in cls.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in cls.params)
        raise ParamError(f"unknown parameter {name!r} for tab {cls.id!r}; known: {known}")

    @classmethod
    def stages(cls) -> tuple[tuple[str, ...], ...]:
        """What presentation mode (F5) shows, one after the other: each figure of
        :attr:`figures` alone, or with its companion of :attr:`figure_pairs` under it (the
        companion is no stage of its own), in the order of the figures.

        :class:`ValueError` when a pair is not two figures of the tab, or a figure is in two
        pairs (or paired with itself).
        """
        companion: dict[str, str] = {}
        used: set[str] = set()
        for pair in cls.figure_pairs:
            if len(pair) != 2:
                raise ValueError(f"tab {cls.id!r}: a figure pair has two figures, not {pair!r}")
            for f in pair:
                if f not in cls.figures:
                    known = ", ".join(cls.figures)
                    raise ValueError(
                        f"tab {cls.id!r}: figure pair {pair!r} names {f!r}, not one of its "
                        f"figures: {known}"
                    )
                if f in used:
                    raise ValueError(f"tab {cls.id!r}: figure {f!r} is in two figure pairs")
                used.add(f)
            companion[pair[0]] = pair[1]
        companions = set(companion.values())
        return tuple(
            (f, companion[f]) if f in companion else (f,)
            for f in cls.figures
            if f not in companions
        )

    @classmethod
    def stage_of(cls, figure: str) -> tuple[str, ...]:
        """The stage (see :meth:`stages`) that shows ``figure``."""
        for stage in cls.stages():
            if figure in stage:
                return stage
        raise KeyError(f"tab {cls.id!r} has no figure {figure!r}")

    @classmethod
    def defaults(cls) -> dict[str, Value]:
        """Every parameter at its default."""
        return {p.name: p.default for p in cls.params}

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        """Bounds that depend on other values, e.g. ``{"pair": (0, dim/2 - 1)}``. Default: none."""
        return {}

    @classmethod
    def animation_range(cls, values: Mapping[str, Value]) -> tuple[float, float]:
        """The range an animation sweeps :attr:`animated` through, for ``values``.

        Default: the parameter's dynamic limits (:meth:`limits`) where it has them, its static
        bounds otherwise. A tab whose static range is too wide to watch narrows it here.
        """
        p = cls.param(cls.animated)
        lo, hi = cls.limits(values).get(p.name, (None, None))
        lo = p.minimum if lo is None else lo
        hi = p.maximum if hi is None else hi
        if p.kind not in ("int", "float") or lo is None or hi is None:
            raise TypeError(f"tab {cls.id!r} animates {p.name!r}, which has no numeric range")
        return float(lo), float(hi)

    @classmethod
    def couple(cls, given: Mapping[str, Value], base: Mapping[str, Value]) -> dict[str, Value]:
        """Rules that tie parameters together, applied before validation.

        Return ``given`` with the values that the rule moves along added (e.g. a distance lock
        that moves ``n`` with ``m``). Every way of changing the state (widgets, drags, the
        command line, sessions) goes through :meth:`resolve`, so the rule holds everywhere.
        Default: no coupling.
        """
        return dict(given)

    @classmethod
    def check_view(cls, values: Mapping[str, Value], view: Mapping[str, Any]) -> None:
        """Refuse a view state (a panel's zoom, from a session) that the tab cannot show at
        ``values``: :class:`ParamError` naming the entry. Unknown entries pass (a panel ignores
        them). Default: every view state passes."""

    @classmethod
    def group(cls, name: str) -> ReadoutGroup:
        """The read-out group called ``name``."""
        for g in cls.groups:
            if g.name == name:
                return g
        raise KeyError(f"tab {cls.id!r} has no read-out group {name!r}")

    @classmethod
    def readouts(cls, values: Mapping[str, Value]) -> dict[str, Any]:
        """Every number the tab displays, JSON-ready: the union of its read-out groups."""
        out: dict[str, Any] = {}
        for g in cls.groups:
            out.update(g(values))
        return out

    @classmethod
    def resolve(
        cls, given: Mapping[str, Value], base: Mapping[str, Value] | None = None
    ) -> dict[str, Value]:
        """Validate ``given`` on top of ``base`` (defaults if None) and return the full value set.

        Values in ``given`` must be accepted as they are, within the static and dynamic limits;
        values not given that fall out of a dynamic range are clamped into it (a smaller ``dim``
        pulls the pair index down). Raises :class:`ParamError` and changes nothing otherwise.
        """
        values = dict(cls.defaults() if base is None else base)
        given = cls.couple(given, values)
        for name, raw in given.items():
            values[name] = cls.param(name).check(raw)
        # Dynamic limits can depend on values that are themselves limited: iterate to a fixpoint.
        for _ in range(len(cls.params) + 1):
            limits = cls.limits(values)
            changed = False
            for name, (lo, hi) in limits.items():
                p = cls.param(name)
                if name in given:
                    values[name] = p.check(values[name], lo, hi)
                    continue
                clamped = p.clamp(values[name], lo, hi)
                if clamped != values[name]:
                    values[name] = clamped
                    changed = True
            if not changed:
                break
        return values

    @classmethod
    def parse_assignments(cls, assignments: list[str]) -> dict[str, Value]:
        """Parse ``["NAME=VALUE", ...]`` (the CLI's ``--set``), validate, return the full set."""
        given: dict[str, Value] = {}
        for item in assignments:
            name, sep, text = item.partition("=")
            if not sep or not name.strip():
                raise ParamError(f"--set expects NAME=VALUE, got {item!r}")
            p = cls.param(name.strip())
            given[p.name] = p.parse(text)
        return cls.resolve(given)


class ParamState:
    """The current parameter values of one tab, with a change signal.

    ``changed`` fires once per value that really changed, after all values of an update are in
    place (so a handler never sees a half-applied update).
    """

    changed = Signal(str, object)

    def __init__(self, model: type[TabModel], values: Mapping[str, Value] | None = None) -> None:
        self.model = model
        self._values: dict[str, Value] = model.resolve(values or {})
        #: The limits of the current values, computed once per change (every bound control
        #: asks for them after every change).
        self._limits: Limits | None = None
        self._last_limits: Limits | None = None

    def __getitem__(self, name: str) -> Value:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def get(self, name: str) -> Value:
        """The current value of ``name``."""
        return self._values[name]

    def as_float(self, name: str) -> float:
        """The current value of a numeric parameter as float (typed accessor)."""
        v = self._values[name]
        if isinstance(v, str):
            raise TypeError(f"{name} is not numeric")
        return float(v)

    def as_int(self, name: str) -> int:
        """The current value of an integer parameter (typed accessor)."""
        v = self._values[name]
        if isinstance(v, str):
            raise TypeError(f"{name} is not numeric")
        return int(v)

    def as_str(self, name: str) -> str:
        """The current value of a choice parameter (typed accessor)."""
        return str(self._values[name])

    def values(self) -> dict[str, Value]:
        """A copy of all current values."""
        return dict(self._values)

    def limits(self) -> Limits:
        """The dynamic limits for the current values (widgets narrow their ranges to these)."""
        return dict(self._current_limits())  # a copy: callers may change theirs

    def limits_token(self) -> object:
        """An object that stays the same (``is``) for as long as :meth:`limits` gives equal
        limits: a control checks it after each change and narrows its range only when the
        limits really moved."""
        return self._current_limits()

    def _current_limits(self) -> Limits:
        if self._limits is None:
            new = self.model.limits(self._values)
            # equal limits keep the object of the last ones (their token)
            self._limits = self._last_limits if new == self._last_limits else new
            self._last_limits = self._limits
        return self._limits

    def set(self, name: str, value: Value) -> None:
        """Set one value; :class:`ParamError` (and no change at all) when it is not accepted."""
        self.update({name: value})

    def update(self, given: Mapping[str, Value]) -> None:
        """Set several values at once, validated together; emits ``changed`` per real change."""
        new = self.model.resolve(given, self._values)
        diff = [
            k
            for k, v in new.items()
            if self._values[k] != v or type(self._values[k]) is not type(v)
        ]
        if not diff:
            return
        self._values = new
        self._limits = None
        for k in diff:
            self.changed.emit(k, new[k])

    def reset(self) -> None:
        """Every value back to its default."""
        self.update(self.model.defaults())

    def readouts(self) -> dict[str, Any]:
        """The numbers the tab displays for the current values."""
        return self.model.readouts(self._values)
