"""The ``heatmap`` tab's panel: its controls, its plots (built by the parts of the panel, one
module per group of views) and the views that refresh them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QPushButton, QVBoxLayout, QWidget

from posenc_gui.panels.base import Cell
from posenc_gui.panels.heatmap.common import (
    AXIS_WIDTH,
    CURVE_INPUTS,
    HOVER_INPUTS,
    IMAGE_INPUTS,
)
from posenc_gui.panels.heatmap.curves import CurveViews
from posenc_gui.panels.heatmap.readouts import ReadoutViews
from posenc_gui.panels.heatmap.wavelength import WavelengthViews
from posenc_gui.state.heatmap import PRESETS, HeatmapModel
from posenc_gui.widgets import styled
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.views import Shown


class HeatmapPanel(CurveViews, WavelengthViews, ReadoutViews):
    """The ``heatmap`` tab."""

    model = HeatmapModel

    def build(self) -> None:
        b = self.book
        # ---- controls ----------------------------------------------------------------------
        table_box = self.controls("Table", "positions", "dim", "base", "layout")
        sel_box = self.controls("Selection", "position", "dimension", "shown_dims")
        preset_box = QGroupBox("One-click views", self)
        preset_layout = QVBoxLayout(preset_box)
        self.explainer_button = self._button(
            preset_box, "preset_explainer_button",
            "&Explainer figure: 30 positions × 6 dims, d = 128",
            "The explainer's figure: the first 30 positions and the first 6 dimensions of a "
            "128-dimensional encoding (positions=30, dim=128, base=10000, dims shown=6).",
        )  # fmt: skip
        self.notebook_button = self._button(
            preset_box, "preset_notebook_button", "&Notebook table: 100 positions × 512 dims",
            "The notebook's PositionalEncoding(512) applied to a batch of length 100 "
            "(positions=100, dim=512, base=10000, all dimensions).",
        )  # fmt: skip
        self.reset_view_button = self._button(
            preset_box, "reset_view_button", "Show &all (reset zoom)",
            "Zoom the heatmap out to every position and every shown dimension.",
        )  # fmt: skip
        for button in (self.explainer_button, self.notebook_button, self.reset_view_button):
            preset_layout.addWidget(button)
        self.explainer_button.clicked.connect(self._explainer_preset)
        self.notebook_button.clicked.connect(self._notebook_preset)
        self.reset_view_button.clicked.connect(self.reset_view)
        #: What the views last set their items from (:meth:`Shown.changed`: set only changes).
        self._shown = Shown()
        self._build_heatmap()
        self._build_texts()
        self._build_vector()
        self._build_curves()
        self._build_wavelengths()

        # ---- views -------------------------------------------------------------------------
        self.view("extent", self.heat_plot, ("positions", "shown"), self._refresh_extent)
        self.view("image", self.image, IMAGE_INPUTS, self._refresh_image)
        self.view("position_lines", self.pos_line, ("positions", "position"),
                  self._refresh_position_lines)  # fmt: skip
        self.view("dimension_lines", self.dim_line, ("shown", "dimension"),
                  self._refresh_dimension_lines)  # fmt: skip
        self.view("hover", self.hover_label, HOVER_INPUTS, self._refresh_hover)
        self.view("vector", self.vector_plot, ("vector", "layout", "dim"), self._refresh_vector)
        self.view("vector_marker", self.vec_marker, ("cell", "dimension"),
                  self._refresh_vector_marker)  # fmt: skip
        self.view("curves", self.curve_plot, CURVE_INPUTS, self._refresh_curves)
        self.view("curve_markers", self.curve_markers, ("cell", "position"),
                  self._refresh_curve_markers)  # fmt: skip
        self.view("curve_label", self.curve_label,
                  ("column", "turns", "positions", "dimension", "curve_range"),
                  self._refresh_curve_label)  # fmt: skip
        self.view("wavelengths", self.wl_plot, ("spectrum",), self._refresh_wavelengths)
        self.view("wavelength_marker", self.wl_selected, ("column",),
                  self._refresh_wavelength_marker)  # fmt: skip
        self.view("turns_label", self.turns_label, ("spectrum", "positions"),
                  self._refresh_turns_label)  # fmt: skip
        self.view("formula", self.formula_label, ("dim", "base", "layout", "positions"),
                  self._refresh_formula)  # fmt: skip
        self.view("readouts", self.readout_label,
                  ("position", "dimension", "column", "cell", "vector", "spectrum"),
                  self._refresh_readouts)  # fmt: skip

        # ---- drags, mouse, view-range events -----------------------------------------------
        def position_shown() -> float:
            return float(self.state.as_int("position"))

        def dimension_shown() -> float:
            return float(self.state.as_int("dimension"))

        self.bind_drag(self.pos_line, self._select_position, position_shown)
        self.bind_drag(self.curve_pos_line, self._select_position, position_shown)
        self.bind_drag(self.dim_line, self._select_dimension, dimension_shown)
        self.bind_drag(self.vec_dim_line, self._select_dimension, dimension_shown)
        self.heat_vb.sigRangeChanged.connect(self._heat_range_changed)
        self.heat_vb.sigResized.connect(self._heat_range_changed)
        self.heat_vb.sigResized.connect(self._align_curve_plot)
        self.curve_vb.sigResized.connect(self._align_curve_plot)
        self.curve_vb.sigXRangeChanged.connect(self._curve_range_changed)
        self.curve_vb.sigResized.connect(self._curve_range_changed)
        scene = self.heat_plot.scene()
        scene.sigMouseMoved.connect(self._mouse_moved)
        scene.sigMouseClicked.connect(self._mouse_clicked)
        b.add(self._style_axes)
        # Titles, axis labels and the span label are text items of their own (the axes' device
        # caches do not hold their labels): cached, a repaint beneath them blits their pixels
        # instead of laying the rich text out and drawing it again.
        for plot in (self.heat_plot, self.vector_plot, self.curve_plot, self.wl_plot):
            styled.cache_texts(plot)  # with the colour bar's label, added after the plot
        styled.keep_pixels(self.span_line.label.textItem, True)

        self.place(
            [table_box, sel_box, preset_box, self.readout_label],
            [
                Cell(self.heat_plot, 0, 0), Cell(self.vector_plot, 0, 1),
                Cell(self.hover_label, 1, 0, 1, 2),
                Cell(self.curve_plot, 2, 0), Cell(self.wl_plot, 2, 1),
                Cell(self.curve_label, 3, 0), Cell(self.turns_label, 3, 1),
                Cell(self.formula_label, 4, 0, 1, 2),
            ],
            row_stretch={0: 6, 2: 4}, col_stretch={0: 5, 1: 2},
        )  # fmt: skip

    # -- building helpers ---------------------------------------------------------------------
    def _style_axes(self, st: Style) -> None:
        width = round(AXIS_WIDTH * st.scale)
        self.heat_plot.getAxis("left").setWidth(width)
        self.curve_plot.getAxis("left").setWidth(width)
        # the vector plot's dimension axis as wide as the heatmap's: a steady width (ticks
        # growing from "8" to "120" would re-lay the plot out and paint it twice), and the
        # same drawing as the heatmap's axis beside it (shared: AlignedAxes)
        self.vector_plot.getAxis("left").setWidth(width)

    def _button(self, parent: QWidget, name: str, text: str, tip: str) -> QPushButton:
        button = QPushButton(text, parent)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", ""))
        button.setToolTip(tip)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        return button

    # -- actions ------------------------------------------------------------------------------
    def _explainer_preset(self) -> None:
        self.apply_preset("explainer")

    def _notebook_preset(self) -> None:
        self.apply_preset("notebook")

    def apply_preset(self, name: str) -> None:
        """Set one of :data:`~posenc_gui.state.heatmap.PRESETS` and show it whole."""
        self.state.update(PRESETS[name])
        self.reset_view()
