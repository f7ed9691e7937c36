"""One style for the whole application: colours by role, sizes by kind, one scale factor.

Panels never write a colour or a size. They ask the current :class:`Style` for a pen, brush,
font or colour map *by role* (``"sin"``, ``"key"``, ``"guide"``...) and *kind* (``"thick"``,
``"title"``...). The application owns one :class:`StyleHub`; when its style changes (scale for
presentation mode, light/dark theme) every panel re-applies its styled items and redraws.

Colours: the Okabe–Ito palette (colour-blind safe); on the dark theme the dark blue and black are
replaced by lighter partners so lines stay visible. Colour maps come in bundled sets
(:data:`COLORMAP_SETS`, all shipped with pyqtgraph), one map per meaning: diverging (values in
[−1, 1]), cyclic (angles), sequential (magnitudes). The default set is colour-blind safe:
``CET-CBD1``, ``CET-CBC1``, ``cividis``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPalette, QPen

if TYPE_CHECKING:
    import pyqtgraph as pg

Theme = Literal["light", "dark"]
THEMES: tuple[Theme, ...] = ("light", "dark")
LineStyle = Literal["solid", "dash", "dot"]

#: Colour of each role, per theme. Roles name what a colour *means*, not what it looks like.
_LIGHT: dict[str, str] = {
    "sin": "#0072B2",  # blue: sine columns, the query
    "cos": "#D55E00",  # vermillion: cosine columns, the key
    "query": "#0072B2",
    "key": "#D55E00",
    "accent": "#009E73",  # bluish green: angles between, highlights
    "second": "#CC79A7",  # reddish purple: a second compared quantity
    "third": "#E69F00",  # orange
    "fourth": "#56B4E9",  # sky blue
    "ink": "#000000",  # markers, cursors, text in plots
    "guide": "#777777",  # reference lines and circles
    "grid": "#000000",  # grid lines (drawn with alpha)
    "background": "#ffffff",  # plot background
    "legend": "#ffffffdc",  # legend box (with alpha)
    "masked": "#ececec",  # masked cells of a matrix (−∞: no value to colour)
    "rim": "#ffffff",  # marker outlines: the background colour
    "good": "#009E73",
    "bad": "#D55E00",
}
_DARK: dict[str, str] = {
    **_LIGHT,
    "sin": "#56B4E9",
    "query": "#56B4E9",
    "cos": "#E69F00",
    "key": "#E69F00",
    "second": "#CC79A7",
    "third": "#F0E442",
    "fourth": "#0072B2",
    "ink": "#f2f2f2",
    "guide": "#a0a0a0",
    "grid": "#ffffff",
    "background": "#1b1d21",
    "legend": "#1b1d21dc",
    "masked": "#33363c",
    "rim": "#1b1d21",
    "bad": "#E69F00",
}
#: Lines of a family of series (dimension curves, heads...) take these roles in order.
SERIES_ROLES: tuple[str, ...] = ("sin", "cos", "accent", "second", "third", "fourth", "ink")

#: Cosmetic pen widths in pixels at scale 1.
WIDTHS: dict[str, float] = {
    "hair": 1.0,
    "thin": 1.2,
    "normal": 1.5,
    "line": 2.0,
    "thick": 2.5,
    "bold": 3.0,
    "heavy": 4.0,
}
#: Marker diameters in pixels at scale 1.
MARKERS: dict[str, float] = {"tiny": 3.0, "small": 5.0, "dot": 8.0, "marker": 10.0, "large": 12.0,
                             "huge": 14.0}  # fmt: skip
#: Font sizes in points at scale 1 (legible from the back of a lecture hall at 1080p).
FONTS: dict[str, float] = {
    "body": 10.0,  # the application font (controls)
    "small": 10.0,
    "tick": 11.0,
    "legend": 11.0,
    "label": 12.0,  # axis labels
    "text": 12.0,  # formula and read-out blocks, labels inside plots
    "title": 13.0,
    "heading": 16.0,
}
#: Bundled colour-map sets: id -> (menu label, {meaning: pyqtgraph colour map}). Every set is
#: perceptually uniform (CET maps and the matplotlib family); the first is the default.
COLORMAP_SETS: dict[str, tuple[str, dict[str, str]]] = {
    "colorblind": (
        "Colour-blind safe (blue–yellow)",
        {"diverging": "CET-CBD1", "cyclic": "CET-CBC1", "sequential": "cividis"},
    ),
    "blue-red": (
        "Blue–white–red (classic)",
        {"diverging": "CET-D1", "cyclic": "CET-C2", "sequential": "viridis"},
    ),
    "dark-centred": (
        "Dark-centred (dark rooms)",
        {"diverging": "CET-D4", "cyclic": "CET-C6", "sequential": "inferno"},
    ),
}
DEFAULT_COLORMAPS = "colorblind"
#: Colour maps by meaning, of the default set.
COLORMAPS: dict[str, str] = COLORMAP_SETS[DEFAULT_COLORMAPS][1]
_LINE_STYLES: dict[str, Qt.PenStyle] = {
    "solid": Qt.PenStyle.SolidLine,
    "dash": Qt.PenStyle.DashLine,
    "dot": Qt.PenStyle.DotLine,
}
MIN_SCALE, MAX_SCALE = 0.75, 3.0


@dataclass(frozen=True)
class Style:
    """An immutable look: a theme, a scale factor applied to every size, a colour-map set."""

    scale: float = 1.0
    theme: Theme = "light"
    colormaps: str = DEFAULT_COLORMAPS
    #: Text snapped to the pixel grid (hinted: crisp on screen). An export's staged copy draws
    #: it unhinted, as the SVG renderers do, so its PNG and SVG match.
    hinted_text: bool = True

    def __post_init__(self) -> None:
        if self.theme not in THEMES:
            raise ValueError(f"theme must be one of {', '.join(THEMES)}, got {self.theme!r}")
        if self.colormaps not in COLORMAP_SETS:
            raise ValueError(
                f"colour maps must be one of {', '.join(COLORMAP_SETS)}, got {self.colormaps!r}"
            )
        if not MIN_SCALE <= self.scale <= MAX_SCALE:
            raise ValueError(f"scale must be from {MIN_SCALE} to {MAX_SCALE}, got {self.scale!r}")

    def replace(self, **changes: object) -> Style:
        """A copy with some fields changed (validated)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    # -- colours -------------------------------------------------------------------------------
    def color(self, role: str) -> str:
        """``#rrggbb`` (or ``#rrggbbaa``) of ``role``; :class:`KeyError` naming the roles."""
        table = _DARK if self.theme == "dark" else _LIGHT
        try:
            return table[role]
        except KeyError:
            raise KeyError(f"unknown colour role {role!r}; roles: {', '.join(table)}") from None

    def qcolor(self, role: str, alpha: float | None = None) -> QColor:
        """The colour of ``role`` as :class:`QColor`, with ``alpha`` in [0, 1] when given."""
        text = self.color(role)
        c = QColor(text[:7])
        if len(text) == 9:
            c.setAlpha(int(text[7:], 16))
        if alpha is not None:
            c.setAlphaF(alpha)
        return c

    def series_role(self, k: int) -> str:
        """The role of the ``k``-th line of a family (cycles through :data:`SERIES_ROLES`)."""
        return SERIES_ROLES[k % len(SERIES_ROLES)]

    # -- sizes ---------------------------------------------------------------------------------
    def width(self, kind: str) -> float:
        """Pen width of ``kind`` in pixels, scaled."""
        return WIDTHS[kind] * self.scale

    def marker(self, kind: str) -> float:
        """Marker diameter of ``kind`` in pixels, scaled."""
        return MARKERS[kind] * self.scale

    def pt(self, kind: str) -> float:
        """Font size of ``kind`` in points, scaled."""
        return FONTS[kind] * self.scale

    def css_pt(self, kind: str) -> str:
        """Font size of ``kind`` as a CSS string (``"12pt"``) for pyqtgraph labels."""
        return f"{self.pt(kind):.1f}pt"

    # -- Qt objects ----------------------------------------------------------------------------
    def pen(self, role: str, width: str = "line", line: LineStyle = "solid") -> QPen:
        """A cosmetic pen (width in screen pixels whatever the zoom)."""
        p = QPen(self.qcolor(role))
        p.setWidthF(self.width(width))
        p.setStyle(_LINE_STYLES[line])
        p.setCosmetic(True)
        return p

    def brush(self, role: str, alpha: float | None = None) -> QBrush:
        """A solid brush of ``role``."""
        return QBrush(self.qcolor(role, alpha))

    def font(self, kind: str, bold: bool = False) -> QFont:
        """A font of ``kind`` (application family) at the scaled size."""
        f = QFont()
        f.setPointSizeF(self.pt(kind))
        f.setBold(bold)
        if not self.hinted_text:
            f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
        return f

    def colormap(self, kind: str) -> pg.ColorMap:
        """The colour map for ``kind`` (``"diverging"``, ``"cyclic"`` or ``"sequential"``) in the
        style's colour-map set."""
        # pyqtgraph is imported here, not at module level: the main window uses this module
        # and must paint before pyqtgraph (~0.6 s) and torch (~2 s) are imported.
        import pyqtgraph as pg

        return pg.colormap.get(COLORMAP_SETS[self.colormaps][1][kind])

    def palette(self) -> QPalette:
        """A Fusion palette for the widgets: high-contrast light, or dark."""
        dark = self.theme == "dark"
        colors = {
            QPalette.ColorRole.Window: "#25272b" if dark else "#f4f5f7",
            QPalette.ColorRole.WindowText: "#eeeeee" if dark else "#111111",
            QPalette.ColorRole.Base: "#1b1d21" if dark else "#ffffff",
            QPalette.ColorRole.AlternateBase: "#2c2f34" if dark else "#eef0f3",
            QPalette.ColorRole.Text: "#eeeeee" if dark else "#111111",
            QPalette.ColorRole.Button: "#33363c" if dark else "#e8eaee",
            QPalette.ColorRole.ButtonText: "#eeeeee" if dark else "#111111",
            QPalette.ColorRole.Highlight: "#56B4E9" if dark else "#0072B2",
            QPalette.ColorRole.HighlightedText: "#000000" if dark else "#ffffff",
            QPalette.ColorRole.ToolTipBase: "#33363c" if dark else "#ffffe8",
            QPalette.ColorRole.ToolTipText: "#eeeeee" if dark else "#111111",
            QPalette.ColorRole.PlaceholderText: "#9a9a9a" if dark else "#666666",
            QPalette.ColorRole.Link: "#7cc4f0" if dark else "#0060a0",
        }
        pal = QPalette()
        for role, color in colors.items():
            pal.setColor(role, QColor(color))
        disabled = QColor("#7a7a7a" if dark else "#8a8a8a")
        for role in (
            QPalette.ColorRole.WindowText,
            QPalette.ColorRole.Text,
            QPalette.ColorRole.ButtonText,
        ):
            pal.setColor(QPalette.ColorGroup.Disabled, role, disabled)
        return pal


class StyleHub(QObject):
    """Holds the application's current :class:`Style` and announces changes."""

    changed = Signal(object)

    def __init__(self, style: Style | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._style = style or Style()

    @property
    def style(self) -> Style:
        """The current style."""
        return self._style

    def set_style(self, style: Style) -> None:
        """Make ``style`` current; emits :attr:`changed` when it differs."""
        if style != self._style:
            self._style = style
            self.changed.emit(style)


_hub: StyleHub | None = None


def hub() -> StyleHub:
    """The application's style hub (created on first use)."""
    global _hub
    if _hub is None:
        _hub = StyleHub()
    return _hub


def current() -> Style:
    """The application's current style."""
    return hub().style


class StyleBook:
    """The styled items of one panel: each registers how it takes a :class:`Style`.

    ``add(fn)`` applies ``fn`` to the current style at once and again on every style change,
    so an item built with a role keeps its meaning (and the current scale) forever — until
    :meth:`clear`. The callbacks usually refer to the panel and its items (``lambda st:
    item.setPen(...)``), so a panel that holds its book is part of a reference cycle; its owner
    clears the book when the panel ends (``Panel.dispose``), which breaks every such cycle at a
    known moment rather than whenever the garbage collector runs.
    """

    def __init__(self, style: Style) -> None:
        self.style = style
        self._appliers: list[Callable[[Style], None]] = []
        self._closed = False

    def add(self, fn: Callable[[Style], None]) -> None:
        """Register ``fn`` and apply it to the current style (a cleared book applies it once
        and keeps nothing)."""
        if not self._closed:
            self._appliers.append(fn)
        fn(self.style)

    def apply(self, style: Style) -> None:
        """Re-style every registered item."""
        self.style = style
        for fn in self._appliers:
            fn(style)

    def clear(self) -> None:
        """Forget every callback, for good (the items keep their look)."""
        self._closed = True
        self._appliers.clear()

    def __len__(self) -> int:
        return len(self._appliers)
