"""The RoPE tab's score matrix over a window of (m, n), built from one row (Toeplitz)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF

from posenc_gui.core.rope_rows import rope_score_row, toeplitz_float32
from posenc_gui.panels.base import Panel
from posenc_gui.panels.rope.circle import line
from posenc_gui.state.rope import MAX_POSITION, RopeModel, rope_layout
from posenc_gui.widgets import styled
from posenc_gui.widgets.render.steady import SteadyLimit
from posenc_gui.widgets.render.toeplitz import ToeplitzImage
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.views import Context, Kept

#: The colour level is kept while the window's maximum |score| is above 1/slack of it.
LEVEL_SLACK = 2.0


class MatrixViews(Panel):
    """The score matrix, its marker and its click (part of :class:`~.panel.RopePanel`)."""

    def _build_matrix(self) -> None:
        b = self.book
        self.matrix_plot = styled.plot(
            b, self, "score_matrix_plot", "Score matrix S[m, n]", "key position n",
            "query position m",
        )  # fmt: skip
        self.matrix_plot.invertY(True)
        image, self.matrix_bar = styled.heatmap(
            b, self.matrix_plot, (-1.0, 1.0), "diverging", label="score", in_colour=True,
            image_type=ToeplitzImage,
        )  # fmt: skip
        assert isinstance(image, ToeplitzImage)
        self.matrix_image = image
        self.diagonal_line = line(b, self.matrix_plot, "ink", "normal", "dash")
        self.matrix_dot = styled.markers(b, self.matrix_plot, "ink", "large")
        self.matrix_plot.scene().sigMouseClicked.connect(self._matrix_clicked)
        self.matrix_plot.setToolTip(
            "Click a cell to move the query to row m and the key to column n"
        )
        #: The matrix shown, by what it is made from: (matrix, reversed row, max |score|).
        self._matrices = Kept(1)
        #: The colour level (steady: it changes only when the window's maximum leaves
        #: (level/2, level]; the colour bar, whose axis is then redrawn, always states it).
        self._level = SteadyLimit(LEVEL_SLACK)
        self._window = ShownRange(self.matrix_plot)

    def _refresh_matrix(self, ctx: Context) -> None:
        v = ctx.values
        size, win = v.as_int("window"), ctx["matrix_window"]
        m0, n0 = int(win["window_m_start"]), int(win["window_n_start"])
        q, k = ctx["qk"]
        base, lay = v.as_float("base"), rope_layout(v.as_str("layout"))
        d0 = m0 - n0
        key = (d0, size, base, lay, q.numpy().tobytes(), k.numpy().tobytes())

        def make() -> tuple[np.ndarray, np.ndarray, float]:
            h = ctx["products"][0]
            row = rope_score_row(h, base, d0 - size + 1, 2 * size - 1)
            # S[a, b] = row[a − b + size − 1] (Toeplitz, as rope_score_toeplitz)
            mat, rev = toeplitz_float32(row, size)
            return mat, rev, float(np.abs(row).max())

        new = key != self._matrices.last_key
        mat, rev, top = self._matrices.get(key, make)
        if new:
            level, _ = self._level.fit(top)
            self.matrix_image.show_toeplitz(mat, rev, (-level, level))
            if tuple(self.matrix_bar.levels()) != (-level, level):  # its axis is redrawn
                self.matrix_bar.setLevels((-level, level))
        level = self._level.value or 0.0
        if self._window.show((n0, n0 + size), (m0, m0 + size)):
            self.matrix_image.setRect(float(n0), float(m0), float(size), float(size))
        ctx.record("matrix", mat, "score S[m, n] over the window")
        ctx.record("levels", [-level, level], "colour-bar range")
        ctx.record("window_start", [m0, n0], "first query and key positions of the window")

    def _refresh_matrix_marker(self, ctx: Context) -> None:
        v = ctx.values
        size, win = v.as_int("window"), ctx["matrix_window"]
        m0, n0 = int(win["window_m_start"]), int(win["window_n_start"])
        m, n = v.as_int("m"), v.as_int("n")
        dist = m - n
        x_lo, x_hi = max(n0, m0 - dist), min(n0 + size, m0 + size - dist)
        if x_hi > x_lo:
            xs = np.array([x_lo, x_hi], dtype=np.float64)
            self.diagonal_line.setData(xs, xs + dist)
        else:
            self.diagonal_line.setData(np.zeros(0), np.zeros(0))
        self.matrix_dot.setData([n + 0.5], [m + 0.5])
        ctx.record("cell", [m, n], "the cell (m, n)")

    def _matrix_clicked(self, event: Any) -> None:
        pos = event.scenePos()
        vb = self.matrix_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        p: QPointF = vb.mapSceneToView(pos)
        size = self.state.as_int("window")
        m0, n0 = RopeModel.window_starts(self.state.values())
        col, row = math.floor(p.x()), math.floor(p.y())
        if m0 <= row < m0 + size and n0 <= col < n0 + size:
            self.state.update({"m": min(row, MAX_POSITION), "n": min(col, MAX_POSITION)})
