"""Key offsets of a causal sequence."""

import numpy as np
import pytest

from posenc_gui.core.causal import causal_key_offsets


def test_offsets_are_key_minus_query_and_zero_after_the_query() -> None:
    offsets, image, mask = causal_key_offsets(4)
    i, j = np.indices((4, 4))
    assert np.array_equal(mask, j > i)
    assert np.array_equal(offsets, np.where(j > i, 0.0, j - i))
    assert image.dtype == np.float32 and np.array_equal(image, offsets)


def test_a_shorter_length_is_the_corner_of_the_same_read_only_matrices() -> None:
    small, _, _ = causal_key_offsets(3, 10)
    big, _, _ = causal_key_offsets(10, 10)
    assert np.shares_memory(small, big) and np.array_equal(small, big[:3, :3])
    assert not small.flags.writeable
    with pytest.raises(ValueError):
        causal_key_offsets(11, 10)
