"""Arcs on a LineGrid: tested by a formula while they move, never missing what their segments
would meet; and the label placement's further spots tried without making any line's cells."""

from __future__ import annotations

import math

import numpy as np

from posenc_gui.widgets.render.occupancy import Arc, LineGrid, place_labels


def _grid(line: object) -> LineGrid:
    grid = LineGrid()
    grid.rasterise([line], ["line"], -2.0, -2.0, 0.05, 80, 80)  # type: ignore[list-item]
    return grid


def test_an_arc_is_free_where_its_segments_are_and_taken_where_they_cross() -> None:
    arc = Arc(0.2, -0.1, 0.8, 0.3, 2.0)  # from 0.3 rad through 2 rad, centre off the origin
    a = np.linspace(arc.start, arc.start + arc.sweep, 400)
    drawn = (arc.x + arc.radius * np.cos(a), arc.y + arc.radius * np.sin(a), "all")
    by_formula, by_segments = _grid(arc), _grid(drawn)
    rng = np.random.default_rng(3)
    cx, cy = rng.uniform(-1.5, 1.5, 600), rng.uniform(-1.5, 1.5, 600)
    hw, hh = rng.uniform(0.02, 0.3, 600), rng.uniform(0.02, 0.3, 600)
    got = by_formula.free(cx.tolist(), cy.tolist(), hw.tolist(), hh.tolist())
    want = by_segments.free(cx.tolist(), cy.tolist(), hw.tolist(), hh.tolist())
    # never free where the segments are met; and free far from the arc
    assert not any(g and not w for g, w in zip(got, want, strict=True))
    assert sum(got) > 0.8 * sum(want)
    mid = arc.start + 0.5 * arc.sweep
    on = (arc.x + arc.radius * math.cos(mid), arc.y + arc.radius * math.sin(mid))
    off = (arc.x - arc.radius * math.cos(mid), arc.y - arc.radius * math.sin(mid))  # opposite
    assert by_formula.free([on[0], off[0], arc.x], [on[1], off[1], arc.y], [0.05] * 3,
                           [0.05] * 3) == [False, True, True]  # fmt: skip
    assert by_formula.rasterised == 1 and by_formula._stale  # tested without its cells


def test_a_whole_circle_meets_a_box_across_it_only() -> None:
    grid = _grid(Arc(0.0, 0.0, 1.0, 0.0, 2.0 * math.pi))
    assert grid.free([0.0, 1.0, 0.0, 1.6], [0.0, 0.0, -1.0, 1.6], [0.3] * 4, [0.1] * 4) == [
        True, False, False, True,
    ]  # fmt: skip
    # its cells, when a lookup needs them, are where the circle runs
    hits = grid.hits(np.array([0.0, 1.0]), np.array([0.0, 0.0]), 0.1, 0.1)
    assert hits[0] == 0 and hits[1] > 0


def test_a_taken_first_spot_falls_to_the_next_free_one_without_cells() -> None:
    wall = (np.array([0.0, 0.0]), np.array([-1.0, 1.0]), "all")  # x = 0
    grid = _grid(wall)

    def more(k: int) -> tuple[np.ndarray, np.ndarray]:
        return np.array([0.0, 0.05, 0.6, 0.9]), np.array([0.0, 0.0, 0.0, 0.0])

    spots = place_labels(grid, [(0.0, 0.0)], more, [(0.1, 0.1)], (-2.0, -2.0, 2.0, 2.0))
    assert spots == [(0.6, 0.0)]  # the first of its other spots clear of the line
    assert grid._stale  # found by the free-spot test: the moving line's cells never made
