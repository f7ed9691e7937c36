"""core.precision: the score over shifts equals the rotation written out, in every dtype."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posenc_gui.core import precision as prec


@pytest.mark.parametrize("t", prec.PRECISION_DTYPES)
def test_scores_equal_the_rotated_vectors_dotted(t: str) -> None:
    d, r = 16, 5
    gen = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, d, dtype=torch.float64, generator=gen)
    inv = prec.inv_freq(d, 10000.0)
    m = torch.tensor([5.0, 300.0, 2049.0, 40000.0], dtype=torch.float64)
    got = prec.shifted_scores(q, k, inv, m, r, t, t).numpy()
    # written out: rotate every pair by the rounded cos/sin of its position, then dot
    for row, pos in enumerate(m.tolist()):
        want = 0.0
        for i in range(d // 2):
            th = torch.tensor(float(inv[i]), dtype=torch.float64).to(prec.torch_dtype(t))
            am = torch.tensor(pos, dtype=torch.float64).to(prec.torch_dtype(t)) * th
            an = torch.tensor(pos - r, dtype=torch.float64).to(prec.torch_dtype(t)) * th
            cm, sm, cn, sn = (float(f(a)) for a in (am, an) for f in (torch.cos, torch.sin))
            qa, qb, ka, kb = (
                float(q[2 * i]),
                float(q[2 * i + 1]),
                float(k[2 * i]),
                float(k[2 * i + 1]),
            )
            want += (qa * cm - qb * sm) * (ka * cn - kb * sn) + (qa * sm + qb * cm) * (
                ka * sn + kb * cn
            )
        np.testing.assert_allclose(got[row], want, rtol=1e-12, atol=1e-12)


def test_float64_score_is_flat_and_limits_are_the_significand() -> None:
    inv = prec.inv_freq(64, 10000.0)
    q = k = torch.ones(64, dtype=torch.float64)
    m = torch.arange(10.0, 5000.0, 37.0, dtype=torch.float64)
    s = prec.shifted_scores(q, k, inv, m, 10, "float64", "float64")
    assert prec.finite_spread(s) < 1e-11
    assert [prec.exact_integer_limit(t) for t in prec.PRECISION_DTYPES] == [2**53, 2**24, 256, 2048]
    assert prec.unit_roundoff("bfloat16") == 2.0**-8 and prec.largest_finite("float16") == 65504.0
