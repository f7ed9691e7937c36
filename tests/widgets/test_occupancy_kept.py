"""What a LineGrid keeps of its last placement: a label whose first spot is taken stays at the
other spot it took while that is clear (no search), goes back to its first spot once that is
clear, and searches again only when its spot is taken; its other spots are made once."""

from __future__ import annotations

import numpy as np

from posenc_gui.widgets.render.occupancy import LineGrid, Spot, place_labels

BOUNDS = (-2.0, -2.0, 2.0, 2.0)
HALF = [(0.1, 0.1)]


def _walls(*xs: float) -> tuple[np.ndarray, np.ndarray, str]:
    """Upright walls at ``xs`` from y = −1 to 1."""
    return np.repeat(xs, 2), np.tile([-1.0, 1.0], len(xs)), "pairs"


class _Spots:
    """A label's other spots along y = 0, counting the calls that make them."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        self.made += 1
        return np.array([0.0, 0.05, 0.6, 0.9]), np.zeros(4)


def _place(grid: LineGrid, walls: float | tuple[float, ...], spots: _Spots) -> Spot:
    xs = walls if isinstance(walls, tuple) else (walls,)
    grid.rasterise([_walls(*xs)], [xs], -2.0, -2.0, 0.05, 80, 80)
    return place_labels(grid, [(0.0, 0.0)], spots, HALF, BOUNDS, ["v"], ["along y = 0"])[0]


def test_a_label_keeps_its_other_spot_while_it_is_clear() -> None:
    grid, spots = LineGrid(), _Spots()
    assert _place(grid, 0.0, spots) == (0.6, 0.0)  # the wall takes the first two
    # the wall moves left: the second spot is clear now, but the one taken still is
    assert _place(grid, -0.12, spots) == (0.6, 0.0)
    assert _place(LineGrid(), -0.12, _Spots()) == (0.05, 0.0)  # where a first search goes
    assert spots.made == 1  # made from the same, in the same bounds: the same other spots
    # the first spot clear: back to it
    assert _place(grid, -0.6, spots) == (0.0, 0.0)


def test_a_taken_kept_spot_is_searched_again_from_the_first() -> None:
    grid, spots = LineGrid(), _Spots()
    assert _place(grid, 0.0, spots) == (0.6, 0.0)
    assert _place(grid, (0.0, 0.62), spots) == (0.9, 0.0)  # a wall on it: the next clear one
    # a wall on the kept one, the second clear: searched from the first again
    assert _place(grid, (-0.12, 0.9), spots) == (0.05, 0.0)
    assert spots.made == 1


def test_the_same_call_on_unchanged_lines_gives_the_kept_answer() -> None:
    grid, spots = LineGrid(), _Spots()
    first = _place(grid, 0.0, spots)
    version = grid.version
    again = place_labels(grid, [(0.0, 0.0)], spots, HALF, BOUNDS, ["v"], ["along y = 0"])
    assert again == [first] and grid.version == version
    grid.rasterise([_walls(0.0)], [(0.0,)], -2.0, -2.0, 0.05, 80, 80)  # nothing new
    assert grid.version == version
    grid.rasterise([_walls(0.3)], [(0.3,)], -2.0, -2.0, 0.05, 80, 80)
    assert grid.version == version + 1
