"""core.colour: values on the fixed scale [−1, 1] to indices of a 256-colour table."""

from __future__ import annotations

import math

import torch

from posenc_gui.core import colour_index


def test_colour_index_is_floor_of_v_plus_one_times_128_clipped() -> None:
    values = [-3.0, -1.0, -1.0 + 1 / 128, -0.5, -1e-9, 0.0, 1e-9, 0.5, 1 - 1e-9, 1.0, 7.0]
    t = torch.tensor(values, dtype=torch.float64)
    got = colour_index(t)
    assert got.dtype.name == "uint8" and got.shape == (len(values),)
    expected = [min(max(math.floor((v + 1) * 128), 0), 255) for v in values]
    assert got.tolist() == expected
    assert got.tolist()[1] == 0 and got.tolist()[5] == 128 and got.tolist()[9] == 255
    assert t.tolist() == values  # the input is not changed


def test_colour_index_keeps_the_shape_and_splits_the_scale_evenly() -> None:
    v = torch.linspace(-1, 1, 256 * 128 + 1, dtype=torch.float64)[:-1].reshape(256, 128)
    got = colour_index(v)
    assert got.shape == (256, 128)
    # each index covers 1/128 of the scale: row r of the grid falls on index r
    assert (got == torch.arange(256)[:, None].numpy()).all()
