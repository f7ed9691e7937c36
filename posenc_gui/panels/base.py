"""The panel base class: one tab = one state, a column of controls, and a set of views.

A subclass sets ``model`` (its Qt-free :class:`TabModel`) and, in :meth:`Panel.build`,
declares its derived quantities (:meth:`Panel.derive`) and views (:meth:`Panel.view`), places
them (:meth:`Panel.place`) and builds its controls (:meth:`Panel.controls`). The model's
read-out groups are derived quantities already, under their group names.

After a state change only the views whose inputs changed are refreshed, once per event-loop turn
whatever the number of changes (the application's :class:`RefreshScheduler` coalesces them:
the latest value wins, stale work never queues). A style change re-styles every item built
through :mod:`posenc_gui.widgets.styled` and refreshes every view (formulas carry colours).

A panel's life ends deterministically, never when the garbage collector runs: :meth:`Panel.dispose`
(called when a panel shown as its own window is closed, when Qt destroys it with its parent, and
when the application quits) stops its background work, disconnects it from its state and the
style hub, unbinds its controls and empties its style book (whose callbacks refer to the panel),
so that nothing outside refers to it and its plot items' menus are deleted with it by Qt (see
:mod:`posenc_gui.widgets.lifetime`).

Figures: each cell of the plot area (a plot or a read-out block) is a figure, named by the view
id its model lists in :attr:`TabModel.figures`; its widget is named ``figure_<ID>``.
:meth:`Panel.enlarge_figure` lets one figure fill the plot area (the others hidden) and restores
the grid; a double-click on a figure does the same.
"""

from __future__ import annotations

import contextlib
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QMouseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QFrame,
    QGraphicsItem,
    QGridLayout,
    QHBoxLayout,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.state import ParamError, ParamState, TabModel
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets import styled
from posenc_gui.widgets.controls import ControlGroup
from posenc_gui.widgets.lifetime import adopt_orphans, on_destroyed
from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.styled import MIN_PLOT_HEIGHT, configure, move_line
from posenc_gui.widgets.views import Context, Memo, Series, View, ViewSet

#: The side column never gets narrower than this (pixels at scale 1) while shown.
SIDE_MIN_WIDTH = 330
SIDE_WIDTH = 440
#: Below this width (pixels at scale 1) the plot grid becomes a single scrolling column.
REFLOW_WIDTH = 760
#: The largest share of the plot area's height that a presented figure's companion (its
#: read-out block) takes; the figure gets the rest.
COMPANION_SHARE = 0.4
QWIDGETSIZE_MAX = (1 << 24) - 1


class RefreshScheduler(QObject):
    """Runs the pending refreshes of all panels once per event-loop turn (zero-delay timer)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._panels: list[Panel] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.run)

    def request(self, panel: Panel) -> None:
        """Refresh ``panel`` on the next turn of the event loop (once, however often asked)."""
        if panel not in self._panels:
            self._panels.append(panel)
        if not self._timer.isActive():
            self._timer.start()

    def cancel(self, panel: Panel) -> None:
        """Forget ``panel`` (it refreshed itself, or is being destroyed)."""
        if panel in self._panels:
            self._panels.remove(panel)

    def is_pending(self, panel: Panel) -> bool:
        """Whether ``panel`` waits for a refresh."""
        return panel in self._panels

    def run(self) -> None:
        """Refresh every waiting panel now."""
        panels, self._panels = self._panels, []
        for panel in panels:
            if shiboken6.isValid(panel):
                panel.flush()


_scheduler: RefreshScheduler | None = None


def scheduler() -> RefreshScheduler:
    """The application's refresh scheduler (created on first use)."""
    global _scheduler
    if _scheduler is None or not shiboken6.isValid(_scheduler):
        _scheduler = RefreshScheduler()
    return _scheduler


@dataclass(frozen=True)
class Cell:
    """Where a widget goes in the wide plot grid (row, column, spans); ``stretch`` in a row."""

    widget: QWidget
    row: int
    col: int
    rowspan: int = 1
    colspan: int = 1


class ReflowGrid(QWidget):
    """The plot area: a grid when wide, one scrolling column (in cell order) when narrow."""

    def __init__(
        self,
        cells: Sequence[Cell],
        row_stretch: Mapping[int, int],
        col_stretch: Mapping[int, int],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("plot_grid")
        self.cells = list(cells)
        self.row_stretch = dict(row_stretch)
        self.col_stretch = dict(col_stretch)
        self.narrow: bool | None = None
        #: The cell that fills the grid alone (see :meth:`enlarge`), ``None``: the grid.
        self.enlarged: QWidget | None = None
        #: The cells shown under the enlarged one (its companions: a formula or read-out).
        self.companions: tuple[QWidget, ...] = ()
        self._shown: list[QWidget] = []  # the cells not hidden before one was enlarged
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.scale = 1.0
        #: Below this width (pixels at scale 1) the cells stand in one column.
        self.reflow_width = REFLOW_WIDTH
        self.set_narrow(False)

    def set_narrow(self, narrow: bool) -> None:
        """Lay the cells out as a grid (``False``) or a single column (``True``)."""
        if narrow == self.narrow:
            return
        self.narrow = narrow
        self._arrange()

    def enlarge(self, widget: QWidget | None, companions: Sequence[QWidget] = ()) -> None:
        """Let the cell ``widget`` fill the grid, the other cells hidden but ``companions``,
        which stand under it at their natural height; ``None`` puts every cell back where it
        was (grid or column) and shows those that were shown."""
        together = tuple(companions) if widget is not None else ()
        if widget is self.enlarged and together == self.companions:
            return
        for w in (widget, *together):
            if w is not None and all(c.widget is not w for c in self.cells):
                raise ValueError("only a cell of the grid can be enlarged")
        if self.enlarged is None:
            self._shown = [c.widget for c in self.cells if not c.widget.isHidden()]
        self.enlarged, self.companions = widget, together
        for c in self.cells:
            shown = c.widget is widget or c.widget in together
            c.widget.setVisible(shown if widget is not None else c.widget in self._shown)
        self._arrange()

    def _arrange(self) -> None:
        for c in self.cells:
            self.grid.removeWidget(c.widget)
        for r in range(self.grid.rowCount()):
            self.grid.setRowStretch(r, 0)
        for k in range(self.grid.columnCount()):
            self.grid.setColumnStretch(k, 0)
        if self.enlarged is not None:
            self._legible_minimum()
            self.grid.addWidget(self.enlarged, 0, 0)
            self.grid.setRowStretch(0, 1)
            self.grid.setColumnStretch(0, 1)
            for r, w in enumerate(self.companions, start=1):
                self.grid.addWidget(w, r, 0)
        elif self.narrow:
            for r, c in enumerate(self.cells):
                self.grid.addWidget(c.widget, r, 0)
                self.grid.setRowStretch(r, 1 if isinstance(c.widget, pg.PlotWidget) else 0)
            self.grid.setColumnStretch(0, 1)
        else:
            self._legible_minimum()
            for c in self.cells:
                self.grid.addWidget(c.widget, c.row, c.col, c.rowspan, c.colspan)
            for r, s in self.row_stretch.items():
                self.grid.setRowStretch(r, s)
            for k, s in self.col_stretch.items():
                self.grid.setColumnStretch(k, s)

    def _legible_minimum(self) -> None:
        """Every cell back to the legible minimum the style gave (the column sized them)."""
        for c in self.cells:
            if isinstance(c.widget, pg.PlotWidget):
                c.widget.setMinimumHeight(int(MIN_PLOT_HEIGHT * self.scale))
                c.widget.setMaximumHeight(QWIDGETSIZE_MAX)
            elif isinstance(c.widget, QScrollArea):
                c.widget.setMinimumHeight(0)

    def grid_min_width(self) -> int:
        """The width the wide grid needs: per column its widest cell's minimum (a read-out's
        widest unbreakable part, a plot's legible width), plus the spacing. The same whether
        the cells stand in the grid or in the column now."""
        widths: dict[int, int] = {}
        for c in self.cells:
            if c.colspan == 1:
                least = c.widget.minimumWidth() or c.widget.minimumSizeHint().width()  # as Qt
                widths[c.col] = max(widths.get(c.col, 0), least)
        spacing = max(self.grid.horizontalSpacing(), 0)
        return sum(widths.values()) + spacing * max(len(widths) - 1, 0)

    def fit(self, width: int, visible_height: int) -> None:
        """Size the cells of the narrow column for ``width`` (the grid's width in pixels).

        Plots get a legible height (0.6 × the width, at least their minimum, at most what is
        visible at once) rather than sharing the window's height as slivers; a scrolled text
        cell is made as tall as its text, so the column scrolls as one and no text area has a
        scroll bar of its own.

        An enlarged figure fits the visible area instead (nothing scrolls): its companions (see
        :meth:`enlarge`) take their text's height, a scrolled one at most
        :data:`COMPANION_SHARE` of the height, and the figure the rest.
        """
        if self.enlarged is not None:
            # (a plot's size hint follows its past sizes: its height is set, not hinted). The
            # figure's height: what the companions leave at this width (its most), and at the
            # stage's narrowest width (its least: the layout's minimum is taken there)
            stage = (self.enlarged, *self.companions)
            narrowest = max(w.minimumWidth() or w.minimumSizeHint().width() for w in stage)
            most = least = visible_height
            share = int(COMPANION_SHARE * visible_height)
            for w in self.companions:
                spacing = max(self.grid.verticalSpacing(), 0)
                if isinstance(w, QScrollArea):
                    h = self._fit_text(w, width, share)
                    most, least = most - h - spacing, least - h - spacing
                else:
                    most -= _text_height(w, width) + spacing
                    least -= _text_height(w, min(narrowest, width)) + spacing
            plot = self.enlarged
            if isinstance(plot, pg.PlotWidget):
                most = max(most, 0)
                least = max(min(int(MIN_PLOT_HEIGHT * self.scale), least, most), 0)
                if plot.minimumHeight() != least:
                    plot.setMinimumHeight(least)
                if plot.maximumHeight() != most:
                    plot.setMaximumHeight(most)
            return
        if not self.narrow:
            return
        floor = int(MIN_PLOT_HEIGHT * self.scale)
        for c in self.cells:
            w = c.widget
            if isinstance(w, pg.PlotWidget):
                h = max(floor, min(int(0.6 * width), int(0.9 * visible_height)))
            elif isinstance(w, QScrollArea):
                self._fit_text(w, width)
                continue
            else:
                continue
            if w.minimumHeight() != h:
                w.setMinimumHeight(h)
            if w.maximumHeight() != h:
                w.setMaximumHeight(h)  # (its size hint follows its past sizes: not the layout)

    @staticmethod
    def _fit_text(w: QWidget, width: int, most: int = QWIDGETSIZE_MAX) -> int:
        """A scrolled text cell as tall as its text at ``width`` (no scroll bar of its own),
        up to ``most`` (it scrolls beyond); its new minimum height."""
        if not isinstance(w, QScrollArea) or (inner := w.widget()) is None:
            return w.minimumHeight()
        h = inner.heightForWidth(width) if inner.hasHeightForWidth() else -1
        h = min(h if h > 0 else inner.sizeHint().height(), most)
        if w.minimumHeight() != h:
            w.setMinimumHeight(h)
        return h


def _text_height(w: QWidget, width: int) -> int:
    """The height ``w`` (a text cell) wants at ``width``."""
    h = w.heightForWidth(width) if w.hasHeightForWidth() else -1
    return max(h if h > 0 else w.sizeHint().height(), w.minimumHeight())


class PlotScroll(QScrollArea):
    """Scrolls the plot grid when the window is smaller than the plots' legible minimum."""

    def __init__(self, grid: ReflowGrid, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plot_scroll")
        self.grid = grid
        self.setWidget(grid)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._grid_min = -1  # the grid's needed width when the layout was last chosen
        grid.installEventFilter(self)  # read-outs widen with their text: choose again

    def reflow(self, width: int, height: int) -> None:
        """One column when ``width`` is below the panel's reflow width or below what the cells
        need side by side (a wide read-out would otherwise push the grid past the window and
        scroll it sideways); then size the column's cells."""
        self._grid_min = need = self.grid.grid_min_width()
        self.grid.set_narrow(width < max(self.grid.reflow_width * self.grid.scale, need))
        bar = self.verticalScrollBar().sizeHint().width()
        self.grid.fit(width - bar, height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        size = event.size()
        self.reflow(size.width(), size.height())
        super().resizeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.LayoutRequest
            and watched is self.grid
            and (self.grid.grid_min_width() != self._grid_min or self.grid.companions)
        ):
            # (a presented figure's companion changed its text: the figure gets the rest)
            self.reflow(self.width(), self.height())
        return super().eventFilter(watched, event)


class Panel(QWidget):
    """Base of every tab. ``message`` carries user-facing notices (rejected input...)."""

    model: ClassVar[type[TabModel]]
    #: The plot area's width (pixels at scale 1) below which its grid becomes one column: a
    #: grid with more cells side by side needs more.
    reflow_width: ClassVar[int] = REFLOW_WIDTH
    #: A notice for the status bar (a refused value); ``""`` withdraws the panel's last one (a
    #: control accepted a value since).
    message = Signal(str)
    #: The id of the figure that now fills the plot area, ``""`` when the grid is back.
    figure_changed = Signal(str)

    def __init__(
        self,
        state: ParamState | None = None,
        parent: QWidget | None = None,
        *,
        style_hub: style_mod.StyleHub | None = None,
    ) -> None:
        super().__init__(parent)
        configure()
        self.setObjectName(f"panel_{self.model.id}")
        self.state = state if state is not None else ParamState(self.model)
        self.hub = style_hub or style_mod.hub()
        self.book = StyleBook(self.hub.style)
        self.scheduler = scheduler()
        self.viewset = ViewSet(p.name for p in self.model.params)
        for g in self.model.groups:
            self.viewset.add_derived(g.name, g.inputs, _group_compute(g))
        #: Number of flushes (each refreshes the views whose inputs changed).
        self.refresh_count = 0
        #: Wall time of the last flush (seconds), for the benchmark harness.
        self.last_refresh_seconds = 0.0
        self._dirty: set[str] = set()
        self._all_dirty = True
        self._stale: set[str] = set()  # views to re-run whatever changed
        self._running: int | None = None  # index of the view refreshing now, during a flush
        self._raised: list[tuple[int, tuple[str, ...]]] = []
        self.side_scroll: QScrollArea | None = None
        self._fitted_need = -1  # the controls column's needed width when it was last fitted
        self.plot_grid: ReflowGrid | None = None
        self.plot_scroll: PlotScroll | None = None
        self._figure_of: dict[QObject, str] = {}  # a figure's widget (or viewport) -> its id
        self._disposed = False
        self.build()
        #: The figures' widgets (cells of the plot area) by id, in the model's order.
        self.figure_widgets: dict[str, QWidget] = self._name_figures()
        #: The figure that fills the plot area now (:meth:`enlarge_figure`), ``None``: none.
        self.enlarged_figure: str | None = None
        #: Presentation mode (:meth:`present`): a figure always fills the plot area.
        self.presenting = False
        self.state.changed.connect(self._on_state_changed)
        self.hub.changed.connect(self._on_style_changed)
        # the safety net: a panel Qt destroys (with its window) lets go of everything too
        on_destroyed(self, self, Panel.dispose)
        _track(self)
        adopt_orphans(self)
        self.refresh_all()

    # -- subclass API -------------------------------------------------------------------------
    def build(self) -> None:
        """Declare derived quantities and views, build controls and place everything."""
        raise NotImplementedError

    def derive(self, name: str, inputs: Iterable[str], compute: Callable[[Context], Any]) -> None:
        """Declare a quantity several views use, recomputed only when ``inputs`` change."""
        self.viewset.add_derived(name, inputs, compute)

    def view(
        self,
        name: str,
        widget: object,
        inputs: Iterable[str],
        refresh: Callable[[Context], None],
        *,
        key: Callable[[Context], object] | None = None,
    ) -> View:
        """Declare a view: ``refresh(ctx)`` runs when one of ``inputs`` changed.

        ``inputs`` are parameter names, derived names (incl. the model's read-out groups) and
        event names (see :meth:`invalidate`). ``key(ctx)`` (optional) says what the view shows:
        when it is unchanged since the view's last run (and the style too), the view is not run
        (see :mod:`posenc_gui.widgets.views`).
        """
        return self.viewset.add_view(View(name, widget, inputs, refresh, key))

    def controls(self, title: str, *names: str) -> ControlGroup:
        """A group of bound controls for ``names``; rejected input goes to :attr:`message`, and
        an accepted value withdraws it (``""``)."""
        group = ControlGroup(
            title, self.state, on_error=self.message.emit, parent=self,
            on_accept=self._input_accepted,
        )  # fmt: skip
        group.add_all(*names)
        return group

    def _input_accepted(self) -> None:
        self.message.emit("")

    def place(
        self,
        side: Sequence[QWidget],
        cells: Sequence[Cell],
        *,
        row_stretch: Mapping[int, int] | None = None,
        col_stretch: Mapping[int, int] | None = None,
    ) -> None:
        """Lay the panel out: a scrolling, collapsible side column and the reflowing plot grid."""
        column = QWidget(self)
        column.setObjectName("side_column")
        lay = QVBoxLayout(column)
        for w in side:
            lay.addWidget(w)
        lay.addStretch(1)
        self.side_scroll = QScrollArea(self)
        self.side_scroll.setObjectName(f"{self.model.id}_side_scroll")
        self.side_scroll.setWidget(column)
        self.side_scroll.setWidgetResizable(True)
        self.side_scroll.setFrameShape(QFrame.Shape.NoFrame)
        # the column is as wide as its widest control or read-out (see _fit_side); only a panel
        # too narrow for that scrolls sideways, rather than cutting numbers off
        self.side_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        column.installEventFilter(self)  # its minimum width grows with its read-outs' text
        self.plot_grid = ReflowGrid(cells, row_stretch or {}, col_stretch or {}, self)
        self.plot_grid.reflow_width = self.reflow_width
        plots = self.plot_scroll = PlotScroll(self.plot_grid, self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("panel_splitter")
        self.splitter.addWidget(self.side_scroll)
        self.splitter.addWidget(plots)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(1, False)
        self._side_dragged = False
        self.splitter.splitterMoved.connect(self._side_moved)
        root = QHBoxLayout(self)
        root.setContentsMargins(4, 4, 4, 4)
        root.addWidget(self.splitter)
        self.book.add(self._apply_layout_style)

    def _apply_layout_style(self, st: Style) -> None:
        if self.plot_grid is not None:
            self.plot_grid.scale = st.scale
        self._side_dragged = False
        self._fit_side()

    def _side_moved(self, *_: object) -> None:
        self._side_dragged = True  # the user's split wins from now on (until a style change)

    # -- figures --------------------------------------------------------------------------------
    def _name_figures(self) -> dict[str, QWidget]:
        """Find each of the model's figures: the cell of the plot area that holds its view's
        widget; name it ``figure_<ID>`` and listen for double-clicks on it."""
        cells = [c.widget for c in self.plot_grid.cells] if self.plot_grid is not None else []
        found: dict[str, QWidget] = {}
        try:
            self.model.stages()  # the figure pairs name figures of the tab
        except ValueError as err:
            raise RuntimeError(str(err)) from None
        for fid in self.model.figures:
            view = self.views.get(fid)
            if view is None:
                raise RuntimeError(f"tab {self.model.id!r}: figure {fid!r} is not a view")
            owner = _widget_of(view.widget)
            cell = next(
                (c for c in cells if owner is not None and (c is owner or c.isAncestorOf(owner))),
                None,
            )
            if cell is None:
                raise RuntimeError(f"tab {self.model.id!r}: figure {fid!r} is not in the plots")
            if any(cell is w for w in found.values()):
                raise RuntimeError(f"tab {self.model.id!r}: figure {fid!r} shares a cell")
            cell.setObjectName(f"figure_{fid}")
            found[fid] = cell
            targets: list[QObject] = [cell]
            if isinstance(cell, QAbstractScrollArea):  # (its viewport gets the mouse)
                targets.append(cell.viewport())
            for t in targets:
                t.installEventFilter(self)
                self._figure_of[t] = fid
        return found

    def enlarge_figure(self, figure: str | None) -> None:
        """Let ``figure`` (an id of :attr:`TabModel.figures`) fill the plot area, the other
        figures hidden; ``None`` restores the plot area as it was."""
        if figure is not None and figure not in self.figure_widgets:
            known = ", ".join(self.figure_widgets)
            raise KeyError(f"tab {self.model.id!r} has no figure {figure!r}; figures: {known}")
        if figure is None and self.presenting and self.figure_widgets:
            figure = next(iter(self.figure_widgets))  # presenting: never the whole grid
        if figure == self.enlarged_figure or self.plot_grid is None:
            return
        self.enlarged_figure = figure
        self._show_enlarged()
        self.figure_changed.emit(figure or "")

    def _show_enlarged(self) -> None:
        """The plot area shows :attr:`enlarged_figure` with the companion its model pairs it
        with (a plot and its formula or read-out are one stage, in and out of presentation
        mode) or, with none, the grid."""
        assert self.plot_grid is not None
        figure = self.enlarged_figure
        if figure is None:
            self.plot_grid.enlarge(None)
        else:
            together = self.model.stage_of(figure)
            widgets = [self.figure_widgets[f] for f in together]
            self.plot_grid.enlarge(widgets[0], widgets[1:])
        if self.plot_scroll is not None:
            self.plot_scroll.reflow(self.plot_scroll.width(), self.plot_scroll.height())

    def present(self, on: bool) -> None:
        """Presentation mode (F5) on or off. On: a figure always fills the plot area — the one
        enlarged, else the first — with the companion its model pairs it with
        (:meth:`TabModel.stages`), and :meth:`enlarge_figure` with ``None`` shows the first
        figure, never the grid. Off: the enlarged figure alone (the caller puts back the layout
        it wants)."""
        if on == self.presenting or self.plot_grid is None or not self.figure_widgets:
            return
        self.presenting = on
        if on and self.enlarged_figure is None:
            self.enlarge_figure(None)
        else:
            self._show_enlarged()

    def stage_figures(self) -> list[str]:
        """The figures stepping goes through, in order: the first figure of each stage (a
        companion shows with its figure)."""
        return [stage[0] for stage in self.model.stages()]

    def figure_step(self, by: int, *, wrap: bool) -> str | None:
        """The figure ``by`` places after the enlarged one in :meth:`stage_figures` (the first
        or the last when none is enlarged); past either end the other end with ``wrap``, else
        ``None``."""
        ids = self.stage_figures()
        if not ids:
            return None
        if self.enlarged_figure is None:
            return ids[0] if by > 0 else ids[-1]
        at = ids.index(self.model.stage_of(self.enlarged_figure)[0]) + by
        if wrap:
            return ids[at % len(ids)]
        return ids[at] if 0 <= at < len(ids) else None

    def toggle_figure(self, figure: str) -> None:
        """Enlarge ``figure``; restore the plot area when it is the one enlarged."""
        self.enlarge_figure(None if figure == self.enlarged_figure else figure)

    def figure_at(self, global_pos: QPoint) -> str | None:
        """The figure shown under the screen point ``global_pos`` (``None``: none)."""
        for fid, w in self.figure_widgets.items():
            if w.isVisible() and w.rect().contains(w.mapFromGlobal(global_pos)):
                return fid
        return None

    def focused_figure(self) -> str | None:
        """The figure that holds the keyboard focus (``None``: none)."""
        focus = QApplication.focusWidget()
        for fid, w in self.figure_widgets.items():
            if focus is not None and (focus is w or w.isAncestorOf(focus)):
                return fid
        return None

    # -- lifetime -------------------------------------------------------------------------------
    def stop_work(self) -> None:
        """Cancel the panel's background work and wait for its threads to finish (the panel
        stays usable: work asked for later starts again). Default: there is none."""

    def dispose(self) -> None:
        """End the panel's life now (idempotent): stop its background work, disconnect it from
        its state and the style hub, unbind its controls, empty its style book (its callbacks
        refer to the panel and its items) and forget a pending refresh. The panel shows what
        it showed and no longer follows its state or the style.

        Called when a panel shown as its own window is closed, when Qt destroys the panel
        (with its window) and when the application quits; a panel that is never closed nor
        destroyed stays alive (as a window does), whatever refers to it.
        """
        if self._disposed:
            return
        self._disposed = True
        _live.discard(self)
        self.stop_work()
        self.state.changed.disconnect(self._on_state_changed)
        # (a panel Qt destroys has lost its connections already)
        if shiboken6.isValid(self) and shiboken6.isValid(self.hub):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                with contextlib.suppress(RuntimeError, TypeError, SystemError):
                    self.hub.changed.disconnect(self._on_style_changed)
        self.scheduler.cancel(self)
        if shiboken6.isValid(self):  # (when Qt destroys the panel its children are gone)
            for group in self.findChildren(ControlGroup):
                group.dispose()
            adopt_orphans(self)  # menus made since (an image's, on a right click)
        self.book.clear()

    @property
    def disposed(self) -> bool:
        """Whether :meth:`dispose` ran."""
        return self._disposed

    def closeEvent(self, event: QCloseEvent) -> None:
        """A panel shown as its own window ends its life when closed (a tab is not closed:
        its window disposes of it when destroyed)."""
        super().closeEvent(event)
        if event.isAccepted() and self.isWindow():
            self.dispose()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.MouseButtonDblClick
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and (figure := self._figure_of.get(watched)) is not None
        ):
            self.toggle_figure(figure)
            return True
        if (
            event.type() == QEvent.Type.LayoutRequest
            and self.side_scroll is not None
            and watched is self.side_scroll.widget()
            and self._side_need() != self._fitted_need
        ):
            self._fit_side()
        return super().eventFilter(watched, event)

    def _side_need(self) -> int:
        """The width the controls column needs to show everything: its content's minimum (the
        widest control row, the widest unbreakable read-out) and a vertical scroll bar."""
        assert self.side_scroll is not None
        column = self.side_scroll.widget()
        assert column is not None
        bar = self.side_scroll.verticalScrollBar().sizeHint().width()
        return column.minimumSizeHint().width() + bar + 2 * self.side_scroll.frameWidth()

    def _fit_side(self) -> None:
        """Give the controls column its width: ``SIDE_WIDTH`` at the style's scale, but never
        more than 45 % of the panel (at a large scale on a small screen the plots need the
        room), nor less than its legible minimum ``SIDE_MIN_WIDTH`` at the scale (clipped
        numbers are worse than a plot area that scrolls) unless the panel itself is too narrow
        for both. Within that, the column is as wide as its controls and read-outs need; what
        still does not fit scrolls sideways (a scroll bar shows it), never cut off unseen."""
        if self.side_scroll is None:
            return
        scale, width = self.book.style.scale, max(self.width(), 1)
        self._fitted_need = need = self._side_need()
        legible = min(SIDE_MIN_WIDTH * scale, 0.6 * width)
        side_min = int(max(legible, min(need, 0.45 * width)))
        if self.side_scroll.minimumWidth() != side_min:
            self.side_scroll.setMinimumWidth(side_min)
        if not self._side_dragged:
            side = max(side_min, int(min(SIDE_WIDTH * scale, 0.45 * width)))
            sizes = [side, max(width - side, 1)]
            if self.splitter.sizes() != sizes:
                self.splitter.setSizes(sizes)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_side()

    def set_controls_visible(self, visible: bool) -> None:
        """Show or hide the side column (the plots take the room)."""
        if self.side_scroll is not None:
            self.side_scroll.setVisible(visible)

    def bind_drag(
        self, line: pg.InfiniteLine, apply: Callable[[float], None], shown: Callable[[], float]
    ) -> None:
        """A draggable line drives the state through ``apply(position)``.

        When the drag ends (or the state refuses or clamps the value) the line snaps back to
        ``shown()``, the position that the state really holds.
        """

        def moved() -> None:
            try:
                apply(float(line.value()))
            except ParamError as err:
                self.message.emit(str(err))

        line.sigPositionChanged.connect(moved)
        line.sigPositionChangeFinished.connect(lambda *_: move_line(line, shown()))

    def readouts(self) -> dict[str, Any]:
        """The numbers this tab shows (what ``posenc-gui values`` prints)."""
        return self.state.readouts()

    @property
    def views(self) -> dict[str, View]:
        """The panel's views by name, in declaration order."""
        return self.viewset.views

    def data(self) -> dict[str, dict[str, Series]]:
        """Every view's arrays: ``{view: {name: Series}}`` (after any pending refresh)."""
        self.refresh_now()
        return {name: v.data() for name, v in self.views.items()}

    def view_state(self) -> dict[str, Any]:
        """What the user changed in the views themselves (zoom...), JSON-ready. Default: none."""
        return {}

    def restore_view_state(self, state: Mapping[str, Any]) -> None:
        """Apply a :meth:`view_state` (from a session); unknown keys are ignored."""

    # -- refresh scheduling ---------------------------------------------------------------------
    def invalidate(self, *events: str) -> None:
        """Mark the views that declare any of ``events`` (or parameters) for the next refresh.

        An event a view raises while it refreshes (say, it set its plot's range) is noted instead:
        views later in the same flush see it already, so only those that ran before it are
        refreshed again — a view is never refreshed twice for its own change.
        """
        if self._disposed:  # (a late signal of one of its items: it follows nothing now)
            return
        if self._running is not None:
            self._raised.append((self._running, events))
            return
        self._dirty.update(events)
        self.scheduler.request(self)

    def _on_state_changed(self, name: str, value: object) -> None:
        self.invalidate(name)

    def _on_style_changed(self, st: Style) -> None:
        self.book.apply(st)
        self._all_dirty = True
        self.scheduler.request(self)

    #: Lines whose pixels are kept on the steps that leave them alone and that are drawn
    #: directly on the steps that set them (see :func:`styled.keep_pixels`).
    kept_lines: Sequence[pg.PlotCurveItem | styled.PixelCurve] = ()

    def flush(self) -> None:
        """Refresh the views whose inputs changed since the last flush; then each of
        :attr:`kept_lines` keeps its pixels if this refresh left its data alone, and is drawn
        directly if it set new data (a changed cached item renders a new pixmap the size of its
        bounds and blits it: more than drawing it)."""
        self.scheduler.cancel(self)
        if not self._dirty and not self._all_dirty and not self._stale:
            return
        before = [(line.xData, line.yData) for line in self.kept_lines]
        self._flush()
        for line, (x, y) in zip(self.kept_lines, before, strict=True):
            styled.keep_pixels(line, line.xData is x and line.yData is y)

    def _flush(self) -> None:
        if self._all_dirty:
            views = list(self.views.values())
        else:
            views = [v for v in self.views.values() if v.name in self._stale]
            views = self.viewset.affected(self._dirty) + views
            order = list(self.views)
            views = sorted(dict.fromkeys(views), key=lambda v: order.index(v.name))
        self._dirty.clear()
        self._stale.clear()
        self._all_dirty = False
        start = time.perf_counter()
        values = self.state.values()
        memo = Memo(values)  # each derived quantity is looked up once in this refresh
        st = self.book.style
        try:
            for i, v in enumerate(views):
                self._running = i
                v.run(self.viewset.context_for(v, values, st, memo))
        finally:
            self._running = None
        ran = {v.name: i for i, v in enumerate(views)}
        for at, events in self._raised:
            for v in self.viewset.affected(events):
                if ran.get(v.name, -1) < at:
                    self._stale.add(v.name)
        self._raised.clear()
        if self._stale:
            self.scheduler.request(self)
        self.last_refresh_seconds = time.perf_counter() - start
        self.refresh_count += 1

    def refresh_now(self) -> None:
        """Run a pending refresh immediately (nothing happens when nothing is pending)."""
        self.flush()

    def refresh_all(self) -> None:
        """Refresh every view now."""
        self._all_dirty = True
        self.flush()

    def pending(self) -> bool:
        """Whether a coalesced refresh is waiting to run."""
        return self.scheduler.is_pending(self)


def _widget_of(obj: object) -> QWidget | None:
    """The widget that shows ``obj``: itself, or the view of the scene a plot item is in."""
    if isinstance(obj, QWidget):
        return obj
    if isinstance(obj, QGraphicsItem) and (scene := obj.scene()) is not None and scene.views():
        return scene.views()[0]
    return None


def _group_compute(group: Any) -> Callable[[Context], Any]:
    return lambda ctx: group(ctx.values)


#: Panels alive: from construction to :meth:`Panel.dispose`. Held strongly, so a panel's end
#: never depends on when the garbage collector runs (a parentless panel freed by it would be
#: deleted by Qt in the middle of whatever Qt call the collection interrupted).
_live: set[Panel] = set()
_quit_hooked: weakref.ref[QApplication] | None = None


def _track(panel: Panel) -> None:
    """Keep ``panel`` alive until disposed; dispose of the live panels when the app quits
    (their worker threads would otherwise hold the interpreter's exit)."""
    global _quit_hooked
    _live.add(panel)
    app = QApplication.instance()
    if app is not None and (_quit_hooked is None or _quit_hooked() is not app):
        app.aboutToQuit.connect(dispose_all)
        _quit_hooked = weakref.ref(app)  # type: ignore[arg-type]


def live_panels() -> list[Panel]:
    """The panels not disposed of yet."""
    return list(_live)


def dispose_all() -> None:
    """Dispose of every live panel (the application quits; a test session ends)."""
    for panel in list(_live):
        panel.dispose()
