"""Labelled value controls built from :class:`Param` descriptions and bound to a state.

A numeric parameter becomes a row ``label | slider | spin box``: the slider for dragging, the
spin box for typing an exact value (applied on Enter or focus-out, not per keystroke). A choice
becomes a combo box, a bool a check box. Every widget gets an object name
(``<param>_slider``, ``<param>_spin``, ``<param>_combo``, ``<param>_check``), an accessible name
and a tooltip with the parameter's description and accepted range.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QSlider,
    QSpinBox,
    QWidget,
)

from posenc_gui.state import Param, ParamState, Value
from posenc_gui.widgets.binding import bind_value

SLIDER_STEPS = 1000


class SliderMap:
    """Maps a parameter value to an integer slider position and back (linear or log)."""

    def __init__(self, param: Param, lo: float, hi: float) -> None:
        self.param = param
        self.lo, self.hi = lo, hi
        self.is_int = param.kind == "int"
        self.step = 2 if param.even else 1
        span = (hi - lo) / self.step if self.is_int else math.inf
        # Small integer ranges map one slider step to one value; everything else to SLIDER_STEPS.
        self.direct = self.is_int and not param.log and span <= 4 * SLIDER_STEPS
        self.steps = int(span) if self.direct else SLIDER_STEPS
        self.log = param.log and lo > 0

    def to_slider(self, value: float) -> int:
        if self.hi <= self.lo:
            return 0
        if self.direct:
            return round((value - self.lo) / self.step)
        if self.log:
            frac = math.log(max(value, self.lo) / self.lo) / math.log(self.hi / self.lo)
        else:
            frac = (value - self.lo) / (self.hi - self.lo)
        return round(min(max(frac, 0.0), 1.0) * self.steps)

    def from_slider(self, pos: int) -> Value:
        if self.direct:
            return int(self.lo + pos * self.step)
        frac = pos / self.steps
        if self.log:
            x: float = self.lo * (self.hi / self.lo) ** frac
        else:
            x = self.lo + frac * (self.hi - self.lo)
        if self.is_int:
            n = round(x)
            if self.step == 2 and n % 2:
                n -= 1 if n - 1 >= self.lo else -1
            return n
        # Round to the displayed precision so the slider never produces unreadable values.
        return float(round(x, self.param.decimals)) if not self.log else _round_sig(x, 4)


def _round_sig(x: float, digits: int) -> float:
    if x == 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def _tooltip(param: Param) -> str:
    return f"{param.description}\nAccepts {param.accepts()}."


class ControlGroup(QGroupBox):
    """A titled grid of labelled controls bound to one state."""

    def __init__(
        self,
        title: str,
        state: ParamState,
        on_error: Callable[[str], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(title, parent)
        self.state = state
        self.on_error = on_error
        self.grid = QGridLayout(self)
        self.grid.setColumnStretch(1, 1)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(4)
        self.widgets: dict[str, QWidget] = {}

    def _label(self, param: Param, buddy: QWidget) -> QLabel:
        text = param.label + (f" ({param.unit})" if param.unit else "")
        label = QLabel(text, self)
        label.setObjectName(f"{param.name}_label")
        label.setBuddy(buddy)
        label.setToolTip(_tooltip(param))
        return label

    def add(self, name: str) -> None:
        """Add the control row of parameter ``name``."""
        param = self.state.model.param(name)
        row = self.grid.rowCount()
        if param.kind in ("float", "int"):
            self._add_numeric(param, row)
        elif param.kind == "choice":
            self._add_choice(param, row)
        else:
            self._add_bool(param, row)

    def add_all(self, *names: str) -> None:
        """Add rows for several parameters in order."""
        for name in names:
            self.add(name)

    # -- numeric: slider + spin box ---------------------------------------------------------
    def _add_numeric(self, param: Param, row: int) -> None:
        state = self.state
        slider = QSlider(Qt.Orientation.Horizontal, self)
        slider.setObjectName(f"{param.name}_slider")
        slider.setAccessibleName(f"{param.label} slider")
        slider.setToolTip(_tooltip(param))
        slider.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        slider.setMinimumWidth(140)
        spin: QSpinBox | QDoubleSpinBox
        if param.kind == "int":
            spin = QSpinBox(self)
            spin.setSingleStep(2 if param.even else 1)
        else:
            spin = QDoubleSpinBox(self)
            spin.setDecimals(param.decimals)
            spin.setSingleStep(param.step or _nice_step(param))
        spin.setObjectName(f"{param.name}_spin")
        spin.setAccessibleName(f"{param.label} value")
        spin.setToolTip(_tooltip(param))
        spin.setKeyboardTracking(False)
        spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        spin.setMinimumWidth(100)
        if param.unit:
            spin.setSuffix(f" {param.unit}")
        spin.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
        holder: dict[str, SliderMap] = {}

        def current_range() -> tuple[float, float]:
            lo, hi = state.limits().get(param.name, (None, None))
            lo = param.minimum if lo is None else lo
            hi = param.maximum if hi is None else hi
            assert lo is not None and hi is not None
            return float(lo), float(hi)

        def apply_limits() -> None:
            lo, hi = current_range()
            m = holder.get("map")
            if m is not None and (m.lo, m.hi) == (lo, hi):
                return
            m = holder["map"] = SliderMap(param, lo, hi)
            slider.setRange(0, m.steps)
            slider.setPageStep(max(1, m.steps // 20))
            blocker = QSignalBlocker(spin)
            try:
                if isinstance(spin, QSpinBox):
                    spin.setRange(int(lo), int(hi))
                else:
                    spin.setRange(lo, hi)
                write_spin(state.get(param.name))
            finally:
                blocker.unblock()
            write_slider(state.get(param.name))

        def write_slider(value: Value) -> None:
            assert not isinstance(value, str)
            slider.setValue(holder["map"].to_slider(float(value)))

        def write_spin(value: Value) -> None:
            assert not isinstance(value, str)
            if isinstance(spin, QSpinBox):
                spin.setValue(int(value))
            else:
                spin.setValue(float(value))

        bind_value(
            state, param.name, slider,
            read=lambda: holder["map"].from_slider(slider.value()),
            write=write_slider, signal=slider.valueChanged,
            on_error=self.on_error, on_limits=apply_limits,
        )  # fmt: skip
        bind_value(
            state, param.name, spin,
            read=lambda: spin.value(), write=write_spin, signal=spin.valueChanged,
            on_error=self.on_error, on_limits=None,
        )  # fmt: skip
        self.grid.addWidget(self._label(param, spin), row, 0)
        self.grid.addWidget(slider, row, 1)
        self.grid.addWidget(spin, row, 2)
        self.widgets[f"{param.name}_slider"] = slider
        self.widgets[f"{param.name}_spin"] = spin

    def _add_choice(self, param: Param, row: int) -> None:
        combo = QComboBox(self)
        combo.setObjectName(f"{param.name}_combo")
        combo.setAccessibleName(param.label)
        combo.setToolTip(_tooltip(param))
        for value, text in zip(param.choices, param.choice_labels, strict=True):
            combo.addItem(text, value)

        def write(value: Value) -> None:
            combo.setCurrentIndex(combo.findData(value))

        bind_value(
            self.state, param.name, combo,
            read=lambda: str(combo.currentData()), write=write,
            signal=combo.currentIndexChanged, on_error=self.on_error,
        )  # fmt: skip
        self.grid.addWidget(self._label(param, combo), row, 0)
        self.grid.addWidget(combo, row, 1, 1, 2)
        self.widgets[f"{param.name}_combo"] = combo

    def _add_bool(self, param: Param, row: int) -> None:
        check = QCheckBox(param.label, self)
        check.setObjectName(f"{param.name}_check")
        check.setAccessibleName(param.label)
        check.setToolTip(_tooltip(param))
        bind_value(
            self.state, param.name, check,
            read=check.isChecked, write=lambda v: check.setChecked(bool(v)),
            signal=check.toggled, on_error=self.on_error,
        )  # fmt: skip
        self.grid.addWidget(check, row, 0, 1, 3)
        self.widgets[f"{param.name}_check"] = check


def _nice_step(param: Param) -> float:
    assert param.minimum is not None and param.maximum is not None
    span = param.maximum - param.minimum
    return float(10 ** math.floor(math.log10(span / 100))) if span > 0 else 0.1
