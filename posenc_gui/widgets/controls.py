"""Labelled value controls built from :class:`Param` descriptions and bound to a state.

A numeric parameter becomes a row ``label | slider | spin box``: the slider for dragging, the
spin box for typing an exact value (applied on Enter or focus-out, not per keystroke). A choice
becomes a combo box, a bool a check box. Every widget gets an object name
(``<param>_slider``, ``<param>_spin``, ``<param>_combo``, ``<param>_check``), an accessible name
and a tooltip with the parameter's description and accepted range.

Typed values are refused, never mangled. The spin boxes (:class:`IntField`,
:class:`FloatField`) accept every keystroke; on Enter, focus-out or an arrow step the *whole*
text is parsed by :meth:`Param.parse` against the current (dynamic) range and set on the state.
A value out of range or malformed changes nothing: its message (naming the parameter and the
accepted range) goes to ``on_error`` (the status bar) and the field shows the refusal: dynamic
property ``invalid`` = true, a red tint, the message in its tooltip, the typed text kept and
selected so the next keystroke replaces it. Editing clears the mark, Escape or leaving the field
puts the state's value back. Arrow keys, Page Up/Down and the wheel step within the range.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QSignalBlocker, QSize, Qt
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QFocusEvent,
    QHideEvent,
    QKeyEvent,
    QPalette,
    QValidator,
)
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

from posenc_gui.state import Param, ParamError, ParamState, Value
from posenc_gui.state.params import Scale
from posenc_gui.widgets.binding import Binding, bind_value

SLIDER_STEPS = 1000


#: The narrowest a value field is (pixels): short ranges still get a field one can click.
FIELD_MIN_WIDTH = 100


class SliderMap:
    """Maps a parameter value to an integer slider position and back.

    Small integer ranges map one slider step to one accepted value (``direct``); everything
    else maps :data:`SLIDER_STEPS` positions through the parameter's :class:`Scale` (linear or
    log), the same map that animations and the benchmark walk.
    """

    def __init__(self, param: Param, lo: float, hi: float) -> None:
        self.param = param
        self.lo, self.hi = lo, hi
        self.is_int = param.kind == "int"
        self.step = 2 if param.even else 1
        span = (hi - lo) / self.step if self.is_int else math.inf
        # Small integer ranges map one slider step to one value; everything else to SLIDER_STEPS.
        self.direct = self.is_int and not param.log and span <= 4 * SLIDER_STEPS
        self.steps = int(span) if self.direct else SLIDER_STEPS
        self.scale = Scale.of(param, lo, hi)
        self.log = self.scale.log

    def to_slider(self, value: float) -> int:
        if self.hi <= self.lo:
            return 0
        if self.direct:
            return round((value - self.lo) / self.step)
        return round(self.scale.to_fraction(value) * self.steps)

    def from_slider(self, pos: int) -> Value:
        if self.direct:
            return int(self.lo + pos * self.step)
        x = self.scale.from_fraction(pos / self.steps)
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


#: Look of a refused field, the same on light and dark themes (every colour used is set): a light
#: tint, dark red text and, as the field has the focus, a frame and selection in vermillion
#: (the palette's "bad"). Arrows and frame stay native (no style sheet).
INVALID_COLOURS: dict[QPalette.ColorRole, str] = {
    QPalette.ColorRole.Base: "#FDE3D6",
    QPalette.ColorRole.Text: "#7A2500",
    QPalette.ColorRole.Highlight: "#D55E00",
    QPalette.ColorRole.HighlightedText: "#FFFFFF",
}
#: Characters that may appear in a displayed or pasted number and mean nothing to the parser:
#: digit-group spaces (narrow no-break, thin, no-break).
_GROUP_SPACES = ("\u202f", "\u2009", "\u00a0")


def display(text: str) -> str:
    """Qt's number text in the app's style (:mod:`posenc_gui.widgets.fmt`): a real minus sign,
    and digit groups with a narrow no-break space once the integer part has five digits."""
    sign = "\u2212" if text.startswith("-") else ""
    body = text[1:] if sign else text
    digits = len(body) - len(body.lstrip("0123456789"))
    if digits >= 5:
        whole = body[:digits]
        head = digits % 3 or 3
        groups = [whole[:head]] + [whole[i : i + 3] for i in range(head, digits, 3)]
        body = "\u202f".join(groups) + body[digits:]
    return sign + body


def normalise(text: str) -> str:
    """Typed or displayed number text as Python and Qt parse it: ASCII minus, no group spaces."""
    for space in _GROUP_SPACES:
        text = text.replace(space, "")
    return text.replace("\u2212", "-")


class TypedEntry:
    """How a number field treats typed text; shared by :class:`IntField` and :class:`FloatField`.

    Every keystroke is kept (the validator never says Invalid, so nothing is silently dropped).
    The whole text is checked only on :meth:`commit` (Enter, focus-out, an arrow step while
    edited): ``submit(text)`` applies it and returns ``None``, or returns the refusal message.
    ``restore()`` shows the state's value again (with the field's signals blocked).
    """

    def __init__(self, spin: QSpinBox | QDoubleSpinBox) -> None:
        self.spin = spin
        self.submit: Callable[[str], str | None] | None = None
        self.restore: Callable[[], None] | None = None
        #: The text was edited since the value was last shown (not yet applied).
        self.edited = False
        #: The refusal message while the field shows a refused text, else None.
        self.error: str | None = None
        self._tooltip = ""
        spin.setProperty("invalid", False)
        spin.lineEdit().textEdited.connect(self._on_edited)

    # -- state of the text ------------------------------------------------------------------
    def _on_edited(self, _text: str) -> None:
        self.edited = True
        self._unmark()

    def shown(self) -> None:
        """The field now shows the state's value: nothing pending, no refusal mark."""
        self.edited = False
        self._unmark()

    def typed_text(self) -> str:
        """The text without prefix/suffix, with U+2212 and digit-group spaces normalised."""
        spin = self.spin
        text = spin.lineEdit().text().strip()
        prefix, suffix = spin.prefix().strip(), spin.suffix().strip()
        if prefix and text.startswith(prefix):
            text = text[len(prefix) :]
        if suffix and text.endswith(suffix):
            text = text[: -len(suffix)]
        text = normalise(text)
        point = spin.locale().decimalPoint()
        if point not in (".", ""):
            text = text.replace(point, ".")
        return text.strip()

    # -- actions ----------------------------------------------------------------------------
    def commit(self) -> bool:
        """Apply the typed text; on refusal mark the field and keep the text. True if applied."""
        if self.submit is None:
            return True
        error = self.submit(self.typed_text())
        if error is not None:
            self._mark(error)
            return False
        self.revert()  # show the value as the state holds it (formatted, clamped by nothing)
        return True

    def revert(self) -> None:
        """Drop the typed text and show the state's value."""
        if self.restore is not None:
            self.restore()
        self.shown()

    def finish(self) -> None:
        """Leaving the field: apply an edited text, or report it and show the state's value."""
        if not self.edited:
            return
        if self.error is None:
            self.commit()  # reports a refusal through submit
        if self.edited:
            self.revert()

    # -- refusal mark -----------------------------------------------------------------------
    def _mark(self, error: str) -> None:
        spin = self.spin
        if self.error is None:
            self._tooltip = spin.toolTip()
        self.error = error
        palette = QPalette()
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            for role, colour in INVALID_COLOURS.items():
                palette.setColor(group, role, QColor(colour))
        spin.setPalette(palette)
        spin.setToolTip(f"{error}\n\n{self._tooltip}" if self._tooltip else error)
        spin.setAccessibleDescription(error)
        self._set_invalid(True)
        line = spin.lineEdit()
        if spin.suffix() and line.text().endswith(spin.suffix()):
            spin.selectAll()  # the number, not the unit
        else:
            line.selectAll()

    def _unmark(self) -> None:
        if self.error is None:
            return
        self.error = None
        spin = self.spin
        spin.setPalette(QPalette())  # nothing resolved: inherit everything again
        spin.setToolTip(self._tooltip)
        spin.setAccessibleDescription("")
        self._set_invalid(False)

    def _set_invalid(self, invalid: bool) -> None:
        spin = self.spin
        spin.setProperty("invalid", invalid)
        style = spin.style()  # re-polish so `QAbstractSpinBox[invalid="true"]` rules apply
        style.unpolish(spin)
        style.polish(spin)
        spin.update()

    # -- event hooks of the field -----------------------------------------------------------
    def validate(self, verdict: Callable[[str, int], object], text: str, pos: int) -> object:
        """Qt's ``verdict`` on the text (read as Qt reads numbers), with Invalid turned into
        Intermediate so that no keystroke is ever dropped."""
        result = verdict(normalise(text), len(normalise(text[:pos])))
        state = result[0] if isinstance(result, tuple) else result
        if state == QValidator.State.Invalid:
            state = QValidator.State.Intermediate
        return state, text, pos

    def key_press(self, event: QKeyEvent) -> bool:
        """Enter applies an edited text, Escape drops it. True when the event was handled."""
        if not self.edited:
            return False
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.commit():
                self.spin.selectAll()
                self.spin.editingFinished.emit()
                event.ignore()  # as QAbstractSpinBox does: a dialog's default button may react
            else:
                event.accept()
            return True
        if key == Qt.Key.Key_Escape:
            self.revert()
            self.spin.selectAll()
            event.accept()
            return True
        return False

    def may_step(self) -> bool:
        """Before an arrow/wheel step: apply an edited text first; no step when it is refused."""
        return not self.edited or self.commit()


class _TypedField:
    """What the integer and the real field share: typed text goes through :class:`TypedEntry`.

    A mixin placed before the Qt spin box class; every method defers to it through ``super()``.
    """

    entry: TypedEntry
    _widest: tuple[float, float] | None = None
    _hints: tuple[QSize, QSize] | None = None
    #: Called after the hints were measured again (the group aligns its fields' widths).
    on_refit: Callable[[], None] | None = None

    def _init_entry(self) -> None:
        self.entry = TypedEntry(self)  # type: ignore[arg-type]

    def fit_range(self, lo: float, hi: float) -> None:
        """Size the field for any value of ``[lo, hi]`` (the parameter's static range).

        A spin box asks for the width of its *current* range's widest text, so each change of a
        dynamic limit (the position range follows the number of positions) would resize the
        controls grid's column and repaint the whole column, ~1–2 ms a slider step. The hints
        of the static range never change; they are measured again when the font changes.
        """
        self._widest = (lo, hi)
        self._refit()

    def _refit(self) -> None:
        if self._widest is None:
            return
        spin: Any = self
        lo, hi = self._widest
        self._hints = None
        blocker = QSignalBlocker(spin)
        try:
            old = (spin.minimum(), spin.maximum(), spin.value())
            number = type(spin.minimum())  # int for the integer field
            spin.setRange(number(lo), number(hi))
            hints = (super().sizeHint(), super().minimumSizeHint())  # type: ignore[misc]
            spin.setRange(old[0], old[1])
            spin.setValue(old[2])
        finally:
            blocker.unblock()
        self._hints = hints
        # A fixed height and (from the group) width: Qt then asks no layout pass of the column
        # when a new dynamic range calls updateGeometry (one each step of the number of
        # positions: the whole side column laid out again, ~1 ms).
        spin.setFixedHeight(hints[0].height())
        if self.on_refit is not None:
            self.on_refit()
        spin.updateGeometry()

    def sizeHint(self) -> QSize:
        if self._hints is not None:
            return self._hints[0]
        return super().sizeHint()  # type: ignore[misc,no-any-return]

    def minimumSizeHint(self) -> QSize:
        if self._hints is not None:
            return self._hints[1]
        return super().minimumSizeHint()  # type: ignore[misc,no-any-return]

    def changeEvent(self, event: QEvent, /) -> None:
        super().changeEvent(event)  # type: ignore[misc]
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._refit()

    def show_value(self, value: Any) -> None:
        """Show ``value`` (the state's), dropping any typed text and refusal mark."""
        self.setValue(value)  # type: ignore[attr-defined]
        self.entry.shown()

    def textFromValue(self, value: Any, /) -> str:
        return display(super().textFromValue(value))  # type: ignore[misc]

    def valueFromText(self, text: str, /) -> Any:
        return super().valueFromText(normalise(text))  # type: ignore[misc]

    def validate(self, text: str, pos: int, /) -> object:
        return self.entry.validate(super().validate, text, pos)  # type: ignore[misc]

    def keyPressEvent(self, event: QKeyEvent, /) -> None:
        if not self.entry.key_press(event):
            super().keyPressEvent(event)  # type: ignore[misc]

    def stepBy(self, steps: int, /) -> None:
        if self.entry.may_step():
            super().stepBy(steps)  # type: ignore[misc]

    def focusOutEvent(self, event: QFocusEvent, /) -> None:
        self.entry.finish()
        super().focusOutEvent(event)  # type: ignore[misc]

    def hideEvent(self, event: QHideEvent, /) -> None:
        self.entry.finish()
        super().hideEvent(event)  # type: ignore[misc]

    def closeEvent(self, event: QCloseEvent, /) -> None:
        self.entry.finish()
        super().closeEvent(event)  # type: ignore[misc]


class IntField(_TypedField, QSpinBox):
    """An integer spin box whose typed text is refused with a message, never truncated."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._init_entry()


class FloatField(_TypedField, QDoubleSpinBox):
    """A real spin box whose typed text is refused with a message, never clamped or rounded.

    A typed value is applied exactly (``0.12345`` stays ``0.12345`` in the state); the field
    shows it at its ``decimals``.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._init_entry()


class ControlGroup(QGroupBox):
    """A titled grid of labelled controls bound to one state (until :meth:`dispose`)."""

    def __init__(
        self,
        title: str,
        state: ParamState,
        on_error: Callable[[str], None] | None = None,
        parent: QWidget | None = None,
        on_accept: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(title, parent)
        self.state = state
        #: Called with the message when a control's value is refused (the status bar)...
        self.on_error = on_error
        #: ... and when a control's value was accepted (that message is then out of date).
        self.on_accept = on_accept
        self.grid = QGridLayout(self)
        self.grid.setColumnStretch(1, 1)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(4)
        self.widgets: dict[str, QWidget] = {}
        self._fields: list[IntField | FloatField] = []
        self._bindings: list[Binding] = []

    def dispose(self) -> None:
        """Unbind every control from the state (the owner closes): the state no longer refers
        to the group's widgets and they no longer write to it."""
        for binding in self._bindings:
            binding.disconnect()
        self._bindings.clear()

    def _align_fields(self) -> None:
        """Give every value field of the group the width of the widest (fixed: see
        :meth:`_TypedField._refit`), so they line up as one column."""
        if not self._fields:
            return
        width = max(max(f.sizeHint().width(), FIELD_MIN_WIDTH) for f in self._fields)
        for f in self._fields:
            if f.minimumWidth() != width or f.maximumWidth() != width:
                f.setFixedWidth(width)

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
        spin: IntField | FloatField
        if param.kind == "int":
            spin = IntField(self)
            spin.setSingleStep(2 if param.even else 1)
        else:
            spin = FloatField(self)
            spin.setDecimals(param.decimals)
            spin.setSingleStep(param.step or _nice_step(param))
        spin.setObjectName(f"{param.name}_spin")
        spin.setAccessibleName(f"{param.label} value")
        spin.setToolTip(_tooltip(param))
        spin.setKeyboardTracking(False)
        spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        self._fields.append(spin)
        spin.on_refit = self._align_fields
        if param.unit:
            spin.setSuffix(f" {param.unit}")
        # Only reached if Qt interprets a text itself (the field commits first): never clamp.
        spin.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        assert param.minimum is not None and param.maximum is not None
        spin.fit_range(param.minimum, param.maximum)
        holder: dict[str, SliderMap] = {}

        def current_range() -> tuple[float, float]:
            lo, hi = state.limits().get(param.name, (None, None))
            assert param.minimum is not None and param.maximum is not None
            lo = param.minimum if lo is None else max(lo, param.minimum)
            hi = param.maximum if hi is None else min(hi, param.maximum)
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
                if isinstance(spin, IntField):
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
            if isinstance(spin, IntField):
                spin.show_value(int(value))
            else:
                spin.show_value(float(value))

        def submit(text: str) -> str | None:
            """Parse the whole typed text against the current range and set it on the state."""
            lo, hi = current_range()
            try:
                value = dataclasses.replace(param, minimum=lo, maximum=hi).parse(text)
                state.set(param.name, value)
            except ParamError as err:
                if self.on_error is not None:
                    self.on_error(str(err))
                return str(err)
            if self.on_accept is not None:
                self.on_accept()
            return None

        def restore() -> None:
            blocker = QSignalBlocker(spin)
            try:
                write_spin(state.get(param.name))
            finally:
                blocker.unblock()

        spin.entry.submit = submit
        spin.entry.restore = restore

        self._bindings.append(bind_value(
            state, param.name, slider,
            read=lambda: holder["map"].from_slider(slider.value()),
            write=write_slider, signal=slider.valueChanged,
            on_error=self.on_error, on_limits=apply_limits, on_accept=self.on_accept,
        ))  # fmt: skip
        self._bindings.append(bind_value(
            state, param.name, spin,
            read=lambda: spin.value(), write=write_spin, signal=spin.valueChanged,
            on_error=self.on_error, on_limits=None, on_accept=self.on_accept,
        ))  # fmt: skip
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

        self._bindings.append(bind_value(
            self.state, param.name, combo,
            read=lambda: str(combo.currentData()), write=write,
            signal=combo.currentIndexChanged, on_error=self.on_error, on_accept=self.on_accept,
        ))  # fmt: skip
        self.grid.addWidget(self._label(param, combo), row, 0)
        self.grid.addWidget(combo, row, 1, 1, 2)
        self.widgets[f"{param.name}_combo"] = combo

    def _add_bool(self, param: Param, row: int) -> None:
        check = QCheckBox(param.label, self)
        check.setObjectName(f"{param.name}_check")
        check.setAccessibleName(param.label)
        check.setToolTip(_tooltip(param))
        self._bindings.append(bind_value(
            self.state, param.name, check,
            read=check.isChecked, write=lambda v: check.setChecked(bool(v)),
            signal=check.toggled, on_error=self.on_error, on_accept=self.on_accept,
        ))  # fmt: skip
        self.grid.addWidget(check, row, 0, 1, 3)
        self.widgets[f"{param.name}_check"] = check


def _nice_step(param: Param) -> float:
    assert param.minimum is not None and param.maximum is not None
    span = param.maximum - param.minimum
    return float(10 ** math.floor(math.log10(span / 100))) if span > 0 else 0.1
