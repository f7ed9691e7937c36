"""Angles of a drawn arc."""

import math

import numpy as np
import pytest

from posenc_gui.core.rotation import arc_angles


def test_an_arc_has_a_point_every_step_and_both_ends() -> None:
    a = arc_angles(0.5, -math.radians(10.0), 3.0)
    assert a.size == 5 and a[0] == 0.5 and math.isclose(a[-1], 0.5 - math.radians(10.0))
    assert np.all(np.abs(np.degrees(np.diff(a))) <= 3.0)
    assert arc_angles(1.0, 0.0, 3.0).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError):
        arc_angles(0.0, 1.0, 0.0)
