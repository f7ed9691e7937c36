"""PE heatmap tab: the table ``PE[p, j]`` (x = position, y = dimension j) with linked slices.

* Top left: the heatmap with a fixed diverging colour scale [-1, 1], crosshair lines at the
  selected position and dimension (draggable; a click selects a cell), the hovered cell's
  formula with numbers underneath.
* Top right, sharing the heatmap's dimension axis: the encoding vector ``PE[p, :]``.
* Bottom left, sharing the heatmap's position axis: the selected column and its sin/cos
  partner over positions, with markers at ``p``.
* Bottom right: every pair's wavelength ``λ_i = 2π/ω_i`` on a log axis against the span of the
  sequence, and how many pairs complete a full turn.

Resolution: the heatmap and the curve are computed only for what lands on pixels of the current
view (at most :data:`MAX_SAMPLES` per axis) and recomputed when the view range or size changes
(events ``heat_range`` and ``curve_range``). When a pixel column covers several positions it
shows the exact **mean** of each column over those positions (closed form,
:func:`posenc_gui.core.sinusoidal.sinusoidal_column_means`), not one sampled position: a column
that oscillates faster than the pixels averages to ~0 (the middle of the colour scale) instead
of drawing moiré arcs. Dimensions likewise: when more columns are shown than the plot has
pixel rows, each pixel row shows the mean of the columns it covers (the column means over the
pixel's positions, averaged, :func:`posenc_gui.core.sinusoidal.group_row_means`), never one
sampled column; a click still selects the dimension under the mouse. The plot says so: its
title becomes "PE[p, j] averaged over positions" (or "… over dimensions", "… over p and j") and
the line under it "Each pixel column = mean over ~N positions; each pixel row = mean over ~M
dimensions", N and M from the image computed (a longer title would force the plot's minimum
width). The curve below draws a fast column as its exact min–max band.

The panel (:mod:`.panel`) is made of one part per group of views: the heatmap (:mod:`.image`:
``extent``, ``image``, ``position_lines``, ``dimension_lines``), the slices (:mod:`.curves`:
``vector``, ``vector_marker``, ``curves``, ``curve_markers``, ``curve_label``), the
wavelengths (:mod:`.wavelength`: ``wavelengths``, ``wavelength_marker``, ``turns_label``) and
the texts (:mod:`.readouts`: ``hover``, ``formula``, ``readouts``); each module lists its
views' inputs. The types that keep a frame cheap are the render layer's
(:mod:`posenc_gui.widgets.render`: ``guides``, ``straight``, ``binned_image``, ``view_range``).
"""

from __future__ import annotations

from posenc_gui.panels.heatmap.common import (
    CURVE_TOLERANCE,
    CURVE_Y_RANGE,
    MAX_SAMPLES,
    SAMPLES_PER_TURN,
    axis_samples,
    curve_samples,
    position_bins,
)
from posenc_gui.panels.heatmap.panel import HeatmapPanel

PANEL = HeatmapPanel

__all__ = [
    "CURVE_TOLERANCE",
    "CURVE_Y_RANGE",
    "MAX_SAMPLES",
    "PANEL",
    "SAMPLES_PER_TURN",
    "HeatmapPanel",
    "axis_samples",
    "curve_samples",
    "position_bins",
]
