"""Show the code: a short, runnable PyTorch snippet per tab that recomputes what the tab shows.

Each tab has a builder ``(values) -> Snippet`` in :data:`BUILDERS`. A :class:`Snippet` holds two
versions of the same computation: ``core`` (uses :mod:`posenc_gui.core`) and ``plain`` (PyTorch
only, no dependency on this project). The parameter values are written as Python literals with
``repr`` (they round-trip exactly); only the branch of the current choices (layout, scheme,
vectors…) is written out. Each snippet ends by binding the tensors it computes to the names of
:attr:`Snippet.outputs` (documented in its header comment) and prints a short summary, so it runs
as ``python snippet.py`` and a test can exec it and compare the tensors with the app's.

Qt-free and torch-free: building a snippet only formats text (``posenc-gui code`` is instant).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from posenc_gui.state.params import ParamError, Value
from posenc_gui.state.registry import TAB_IDS, get_model
from posenc_gui.state.sine import WAVE_MIN_SAMPLES, WAVE_PER_PERIOD, WAVE_SAMPLES, wave_samples

#: The heatmap snippet computes at most this many table entries (rows × dim); a larger table is
#: taken every ``step``-th position (the app draws the mean of each pixel's positions).
MAX_TABLE_ENTRIES = 4_000_000


@dataclass(frozen=True)
class Output:
    """A tensor a snippet binds at its end: its name and what it holds (with its shape)."""

    name: str
    doc: str


@dataclass(frozen=True)
class Snippet:
    """The two versions of one tab's snippet for one set of parameter values."""

    tab: str
    core: str
    plain: str
    outputs: tuple[Output, ...]

    def source(self, plain: bool = False) -> str:
        """The plain-PyTorch version when ``plain``, else the ``posenc_gui.core`` one."""
        return self.plain if plain else self.core

    @property
    def names(self) -> tuple[str, ...]:
        """The names the snippet binds (in order)."""
        return tuple(o.name for o in self.outputs)


def lit(value: Value) -> str:
    """``value`` as a Python literal that evaluates to exactly the same value."""
    return repr(value)


def _assign(names: Sequence[str], values: Sequence[Value], comment: str) -> str:
    """``a, b = 1, 2.0  # comment`` (one line of the parameter block)."""
    left = ", ".join(names)
    right = ", ".join(lit(v) for v in values)
    return f"{left} = {right}  # {comment}"


def _header(title: str, tab: str, plain: bool, outputs: Sequence[Output]) -> list[str]:
    how = "in plain PyTorch (needs only torch)" if plain else "with posenc_gui.core"
    width = max(len(o.name) for o in outputs)
    lines = [f"# PosEnc Explorer · {title} (tab {tab!r}), recomputed {how}.", "# Results:"]
    lines += [f"#   {o.name:<{width}}  {o.doc}" for o in outputs]
    return lines


def _imports(plain: bool, math: bool = False) -> list[str]:
    lines = ["import math", ""] if math else []
    lines += ["import torch"]
    if not plain:
        lines += ["", "from posenc_gui import core"]
    return [*lines, ""]


def _join(*parts: Sequence[str]) -> str:
    return "\n".join(line for part in parts for line in part).rstrip() + "\n"


def _both(
    tab: str,
    outputs: Sequence[Output],
    params: Sequence[str],
    core_body: Sequence[str],
    plain_body: Sequence[str],
    summary: Sequence[str],
    *,
    math: bool = False,
) -> Snippet:
    title = get_model(tab).title
    versions = [
        _join(
            _header(title, tab, plain, outputs),
            [""],
            _imports(plain, math),
            params,
            [""],
            plain_body if plain else core_body,
            [""],
            summary,
        )
        for plain in (False, True)
    ]
    return Snippet(tab, versions[0], versions[1], tuple(outputs))


# -- shared plain-PyTorch pieces -------------------------------------------------------------------
def _plain_omega(d: str = "d", name: str = "omega") -> str:
    return f"{name} = base ** (-torch.arange(0, {d}, 2, dtype=torch.float64) / {d})  # base^(−2i/d)"


def _plain_table(layout: str, positions: str, out: str) -> list[str]:
    """Lines building the sinusoidal table of float64 ``positions`` (needs ``omega``, ``d``)."""
    lines = [f"angles = {positions}[:, None] * omega  # p·ω_i"]
    if layout == "concat":
        lines.append(
            f"{out} = torch.cat((angles.sin(), angles.cos()), dim=1)  # sines, then cosines"
        )
    else:
        lines.append(
            f"{out} = torch.stack((angles.sin(), angles.cos()), dim=2).flatten(1)"
            "  # 2i: sin, 2i+1: cos"
        )
    return lines


# -- sine ------------------------------------------------------------------------------------------
def _sine(v: Mapping[str, Value]) -> Snippet:
    n = wave_samples(float(v["frequency"]))  # as the wave plot samples this frequency
    outputs = (
        Output("t", f"({n},) time t in [0, 2] s, as the wave plot samples it"),
        Output("wave", f"(2, {n}) A·sin(2πft+φ) and A·cos(2πft+φ) over t"),
        Output("at_cursor", "(2,) A·sin θ and A·cos θ at the cursor"),
        Output("omega", "(d/2,) frequencies ω_i = base^(−2i/d)"),
        Output("ladder", "(L, dims shown) PE[p, j] for p < L and the first dims"),
        Output("pe", "(d,) the encoding vector PE[p]"),
        Output("pair_angles", "(d/2,) the angles p·ω_i of the pairs at position p (rad)"),
    )
    params = [
        _assign(("A", "f", "phi", "cursor"),
                (v["amplitude"], v["frequency"], v["phase"], v["cursor"]),
                "amplitude, frequency (Hz), phase (rad), cursor t (s)"),
        _assign(("d", "base", "L", "p", "shown"),
                (v["dim"], v["base"], v["length"], v["position"], v["ladder_dims"]),
                "dim, base, positions, position p, dims shown"),
    ]  # fmt: skip
    wave = [
        f"t = torch.linspace(0.0, 2.0, {n}, dtype=torch.float64)"
        f"  # {WAVE_PER_PERIOD} samples a period, {WAVE_MIN_SAMPLES} to {WAVE_SAMPLES}",
        "theta = 2 * math.pi * f * t + phi",
        "wave = torch.stack((A * theta.sin(), A * theta.cos()))",
        "theta0 = 2 * math.pi * f * cursor + phi",
        "at_cursor = torch.tensor([A * math.sin(theta0), A * math.cos(theta0)], "
        "dtype=torch.float64)",
        "",
    ]
    core_body = [
        *wave,
        "omega = core.inverse_frequencies(d, base)  # ω_i = base^(−2i/d)",
        "ladder = core.sinusoidal_encoding(L, d, base, dtype=torch.float64)[:, :shown]",
        "pe = core.sinusoidal_at([p], d, base, dtype=torch.float64)[0]",
        "pair_angles = core.sinusoidal_pair_angles([p], d, d, base)[0]  # PE[p, 2i] = sin of it",
    ]
    plain_body = [
        *wave,
        _plain_omega(),
        *_plain_table("interleaved", "torch.arange(L, dtype=torch.float64)", "table"),
        "ladder, pe = table[:, :shown], table[p]",
        "pair_angles = p * omega  # PE[p, 2i] = sin of it, PE[p, 2i+1] = cos",
    ]
    summary = [
        'print(f"t = {cursor} s: A·sin θ = {at_cursor[0]:.6f}, A·cos θ = {at_cursor[1]:.6f}")',
        'print(f"PE[{p}] =", [round(x, 6) for x in pe.tolist()])',
    ]
    return _both("sine", outputs, params, core_body, plain_body, summary, math=True)


# -- heatmap ---------------------------------------------------------------------------------------
def heatmap_step(positions: int, dim: int) -> int:
    """Every how many positions the heatmap snippet takes a row (1 unless the table is huge)."""
    rows = max(1, MAX_TABLE_ENTRIES // dim)
    return max(1, -(-positions // rows))


def _heatmap(v: Mapping[str, Value]) -> Snippet:
    from posenc_gui.state.heatmap import shown_count

    outputs = (
        Output("positions", "(rows,) the positions of the table's rows"),
        Output("pe", "(rows, dims shown) PE[p, j], the table of the heatmap"),
        Output("vector", "(d,) the encoding vector PE[p] at the selected position"),
        Output("value", "() PE[p, j], the selected entry"),
        Output("wavelength", "(d/2,) λ_i = 2π/ω_i of every pair, in positions"),
    )
    length, d = int(v["positions"]), int(v["dim"])
    step = heatmap_step(length, d)
    layout = str(v["layout"])
    params = [
        _assign(("L", "d", "base", "layout"), (length, d, v["base"], layout),
                "positions, dim, base, column layout"),
        _assign(("p", "j", "shown"), (v["position"], v["dimension"], shown_count(v)),
                "selected position and dimension, dims shown"),
    ]  # fmt: skip
    rows = ["positions = torch.arange(0, L, dtype=torch.float64)"]
    if step > 1:
        rows = [
            f"# {length} × {d} numbers are too many to hold: every {step}-th position",
            "# (the app draws the mean of the positions under each pixel)",
            f"positions = torch.arange(0, L, {step}, dtype=torch.float64)",
        ]
    core_body = [
        *rows,
        "pe = core.sinusoidal_at(positions, d, base, layout=layout, dtype=torch.float64)"
        "[:, :shown]",
        "vector = core.sinusoidal_at([p], d, base, layout=layout, dtype=torch.float64)[0]",
        "value = vector[j]",
        "wavelength = core.wavelengths(d, base)  # 2π/ω_i",
    ]
    plain_body = [
        _plain_omega(),
        "",
        "",
        "def encode(pos):  # the rows PE[pos] of float64 positions pos",
        *("    " + line for line in _plain_table(layout, "pos", "table")),
        "    return table",
        "",
        "",
        *rows,
        "pe = encode(positions)[:, :shown]",
        "vector = encode(torch.tensor([float(p)]))[0]",
        "value = vector[j]",
        "wavelength = 2 * math.pi / omega",
    ]
    summary = [
        'print(f"table {tuple(pe.shape)}; PE[{p}, {j}] = {value:.6f}; |PE[{p}]|² = '
        '{vector @ vector:.3f} (= d/2)")',
    ]
    return _both("heatmap", outputs, params, core_body, plain_body, summary, math=True)


# -- rotation --------------------------------------------------------------------------------------
def _rotation(v: Mapping[str, Value]) -> Snippet:
    outputs = (
        Output("R", "(2, 2) R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]"),
        Output("rotated", "(2,) R(θ)·v"),
        Output("M", "(2, 2) M_k = R(−kω_i): shifts (sin pω, cos pω) by k positions"),
        Output("pairs", "(2, 2) PE pair i (sin, cos) at p and at p + k"),
        Output("predicted", "(2,) M_k·pairs[0], equal to pairs[1]"),
        Output("R_m", "(head dim, head dim) RoPE's block-diagonal R_m"),
    )
    half = v["layout"] == "half"
    params = [
        _assign(("angle", "x", "y"), (v["angle"], v["x"], v["y"]), "θ in degrees, v = (x, y)"),
        _assign(("d", "base", "i", "p", "k"),
                (v["dim"], v["base"], v["pair"], v["position"], v["offset"]),
                "dim, base, pair i, position p, offset k"),
        _assign(("m", "head_dim", "layout"), (v["m"], v["block_dim"], v["layout"]),
                "RoPE position m, head dim, pair layout"),
    ]  # fmt: skip
    core_body = [
        "R = core.rotation_matrix(math.radians(angle))",
        "rotated = R @ torch.tensor([x, y], dtype=torch.float64)",
        "omega = float(core.inverse_frequencies(d, base)[i])  # ω_i",
        "M = core.rotation_matrix(-k * omega)",
        "table = core.sinusoidal_at([p, p + k], d, base, dtype=torch.float64)",
        "pairs = table[:, 2 * i : 2 * i + 2]  # (sin, cos) of pair i at p and p + k",
        "predicted = M @ pairs[0]",
        "R_m = core.rope_matrix(m, head_dim, base, layout=layout)",
    ]
    block = "a, b = (c, c + head_dim // 2)" if half else "a, b = (2 * c, 2 * c + 1)"
    plain_body = [
        "",
        "def rot(a):  # counter-clockwise rotation by a radians",
        "    c, s = math.cos(a), math.sin(a)",
        "    return torch.tensor([[c, -s], [s, c]], dtype=torch.float64)",
        "",
        "",
        "R = rot(math.radians(angle))",
        "rotated = R @ torch.tensor([x, y], dtype=torch.float64)",
        "omega = base ** (-2 * i / d)  # ω_i",
        "M = rot(-k * omega)",
        "pairs = torch.tensor([[math.sin(q * omega), math.cos(q * omega)] for q in (p, p + k)],",
        "                     dtype=torch.float64)",
        "predicted = M @ pairs[0]",
        "R_m = torch.zeros(head_dim, head_dim, dtype=torch.float64)  # one R(m·θ_c) per pair c",
        "for c in range(head_dim // 2):",
        f"    {block}",
        "    R_m[[a, a, b, b], [a, b, a, b]] = rot(m * base ** (-2 * c / head_dim)).flatten()",
    ]
    summary = [
        'print(f"R(θ)v = {rotated.tolist()}, |v| = {math.hypot(x, y):.6f} = |Rv| = '
        '{rotated.norm():.6f}")',
        'print(f"M_k·PE pair at p − PE pair at p+k: {(predicted - pairs[1]).abs().max():.1e}")',
    ]
    return _both("rotation", outputs, params, core_body, plain_body, summary, math=True)


# -- rope ------------------------------------------------------------------------------------------
def _rope(v: Mapping[str, Value]) -> Snippet:
    from posenc_gui.state.rope import pair_indices, window_start

    outputs = (
        Output("q", "(d,) the query vector"),
        Output("k", "(d,) the key vector"),
        Output("q_rot", "(d,) R_m·q, the query rotated by its position m"),
        Output("k_rot", "(d,) R_n·k, the key rotated by its position n"),
        Output("score", "() the attention score ⟨R_m q, R_n k⟩ (depends on m − n only)"),
        Output("scores", "(W, W) scores of queries m0 … m0+W−1 (rows) and keys n0 … (columns)"),
        Output("score_curve", "(2R+1,) the score at every distance r = m − n = −R … R"),
        Output("score_qk_curve", "(2R+1,) the same with q = k (the key): largest at r = 0"),
    )
    m, n, size = int(v["m"]), int(v["n"]), int(v["window"])
    d, layout, mode = int(v["dim"]), str(v["layout"]), str(v["vectors"])
    params = [
        _assign(("d", "base", "layout"), (d, v["base"], layout), "head dim, base, pair layout"),
        _assign(("m", "n", "seed"), (m, n, v["seed"]), "query and key positions, seed of q and k"),
        _assign(("m0", "n0", "W"), (window_start(m, size), window_start(n, size), size),
                "score-matrix window: first query and key positions, size"),
        _assign(("R",), (v["range_max"],), "distance range of the score curves"),
    ]  # fmt: skip
    vectors = [
        "gen = torch.Generator().manual_seed(seed)",
        "q, k = torch.randn(2, d, dtype=torch.float64, generator=gen)",
    ]
    if mode == "q=k":
        vectors.append("q = k.clone()  # q = k")
    elif mode == "typed":
        a, b = pair_indices(d, int(v["pair"]), layout)
        vectors += [
            f"q[{a}], q[{b}] = {lit(v['q0'])}, {lit(v['q1'])}  # the typed pair {v['pair']}",
            f"k[{a}], k[{b}] = {lit(v['k0'])}, {lit(v['k1'])}",
        ]
    core_body = [
        *vectors,
        "q_rot = core.apply_rope(q[None], [m], base=base, layout=layout)[0]",
        "k_rot = core.apply_rope(k[None], [n], base=base, layout=layout)[0]",
        "score = q_rot @ k_rot",
        "scores = core.rope_scores(q, k, torch.arange(m0, m0 + W), torch.arange(n0, n0 + W),",
        "                          base=base, layout=layout)",
        "score_curve = core.rope_score_range(q, k, -R, 2 * R + 1, base=base, layout=layout)",
        "score_qk_curve = core.rope_score_range(k, k, -R, 2 * R + 1, base=base, layout=layout)",
    ]
    if layout == "half":
        pairs = [
            "    a, b = x[..., : d // 2], x[..., d // 2 :]  # pairs (x[i], x[i + d/2])",
            "    return torch.cat((a * c - b * s, a * s + b * c), dim=-1)",
        ]
    else:
        pairs = [
            "    a, b = x[..., 0::2], x[..., 1::2]  # pairs (x[2i], x[2i+1])",
            "    return torch.stack((a * c - b * s, a * s + b * c), dim=-1).flatten(-2)",
        ]
    plain_body = [
        *vectors,
        _plain_omega(name="theta"),
        "",
        "",
        "def rope(x, pos):  # rotate pair i of x by pos·θ_i (pos: a number or a 1-D tensor)",
        "    angle = torch.as_tensor(pos, dtype=torch.float64)[..., None] * theta",
        "    c, s = angle.cos(), angle.sin()",
        *pairs,
        "",
        "",
        "q_rot, k_rot = rope(q, m), rope(k, n)",
        "score = q_rot @ k_rot",
        "scores = rope(q, torch.arange(m0, m0 + W)) @ rope(k, torch.arange(n0, n0 + W)).T",
        "# score(r) = ⟨q, R_−r k⟩: the score depends on r = m − n only (blocks of 4096 distances)",
        "r = torch.arange(-R, R + 1, dtype=torch.float64).split(4096)",
        "score_curve = torch.cat([rope(k, -block) @ q for block in r])",
        "score_qk_curve = torch.cat([rope(k, -block) @ k for block in r])",
    ]
    summary = [
        'print(f"score at m = {m}, n = {n}: {score:.6f} (m − n = {m - n})")',
        'print(f"score matrix {tuple(scores.shape)}, constant along its diagonals")',
    ]
    return _both("rope", outputs, params, core_body, plain_body, summary)


# -- alibi -----------------------------------------------------------------------------------------
def _alibi(v: Mapping[str, Value]) -> Snippet:
    from posenc_gui.state.alibi import MAX_POSITIONS

    outputs = (
        Output("slopes", "(n,) the slope m_h of every head h = 1 … n"),
        Output("bias", "(L, L) bias[i, j] = −m·(i − j) of head h (−inf for keys after the query)"),
        Output("logits", "(L,) the content logits s_j of query i (zero or N(0, 1))"),
        Output("weights", "(L,) softmax over keys of query i with the bias (causal)"),
        Output("weights_plain", "(L,) the same without the bias"),
    )
    params = [
        _assign(("n_heads", "h", "L", "i"),
                (v["heads"], v["head"], v["positions"], v["query"]),
                "heads, head shown (1 … n), positions, query i"),
    ]  # fmt: skip
    if v["logits"] == "random":
        logits = [
            f"gen = torch.Generator().manual_seed({lit(v['seed'])})",
            f"logits = torch.randn({MAX_POSITIONS}, dtype=torch.float64, generator=gen)[:L]",
        ]
    else:
        logits = ["logits = torch.zeros(L, dtype=torch.float64)  # position alone decides"]
    core_body = [
        "slopes = core.alibi_slopes(n_heads)",
        "m = float(slopes[h - 1])",
        "bias = core.alibi_bias_for_slope(m, L)",
        *logits,
        "weights = core.causal_softmax_row(logits, i, m)",
        "weights_plain = core.causal_softmax_row(logits, i, 0.0)",
    ]
    plain_body = [
        "",
        "def alibi_slopes(n):  # 2^(−8h/n) for n a power of two, else the paper's rule",
        "    p = 1 << (n.bit_length() - 1)  # the nearest power of two <= n",
        "    first = [2 ** (-8 * h / p) for h in range(1, p + 1)]",
        "    return first if p == n else first + alibi_slopes(2 * p)[0::2][: n - p]",
        "",
        "",
        "slopes = torch.tensor(alibi_slopes(n_heads), dtype=torch.float64)",
        "m = float(slopes[h - 1])",
        "pos = torch.arange(L, dtype=torch.float64)",
        "offset = pos[None, :] - pos[:, None]  # j − i: query row i, key column j",
        "bias = (m * offset).masked_fill(offset > 0, float('-inf'))  # −m·(i − j), causal",
        *logits,
        "weights = torch.softmax(logits + bias[i], dim=0)",
        "weights_plain = torch.softmax(logits.masked_fill(pos > i, float('-inf')), dim=0)",
    ]
    summary = [
        'print(f"head {h} of {n_heads}: slope m = {m:.6g}; bias row of query {i} ends with",',
        "      bias[i, max(0, i - 3) : i + 1].tolist())",
        "print(f\"weight of the query's own key: {weights[i]:.4f} with the bias, "
        '{weights_plain[i]:.4f} without")',
    ]
    return _both("alibi", outputs, params, core_body, plain_body, summary)


# -- encodings -------------------------------------------------------------------------------------
_PLAIN_TABLES: dict[str, list[str]] = {
    "naive": [
        "table = torch.arange(L, dtype=torch.float64)[:, None].expand(L, d)  # P[p, j] = p",
    ],
    "normalized": [
        "p = torch.arange(L, dtype=torch.float64)",
        "table = (p / (L - 1))[:, None].expand(L, d)  # P[p, j] = p/(L−1)",
    ],
    "binary": [
        "p, j = torch.arange(L)[:, None], torch.arange(d)[None, :]",
        "table = ((p >> j) & 1).to(torch.float64)  # bit j of p, least significant first",
    ],
    "learned": [
        "# untrained: an nn.Embedding(512, d) as initialised, N(0, 0.02²); its first L rows",
        "gen = torch.Generator().manual_seed(seed)",
        "table = (torch.randn(512, d, generator=gen) * 0.02)[:L].to(torch.float64)",
    ],
}


def _encodings(v: Mapping[str, Value]) -> Snippet:
    outputs = (
        Output("table", "(L, d) the encoding table P[p, j] (rows: positions)"),
        Output("dots", "(L − k,) P[i]·P[i+k] for i = 0 … L−1−k"),
        Output("cosine", "(L, L) cosine similarity of every two rows"),
    )
    scheme = str(v["scheme"])
    params = [
        _assign(("scheme", "L", "d"), (scheme, v["positions"], v["dim"]),
                "scheme, positions, dim (bits for binary)"),
        _assign(("layout", "seed", "k"), (v["layout"], v["seed"], v["distance"]),
                "sinusoidal layout, seed of the learned table, distance k"),
    ]  # fmt: skip
    core_body = [
        "table = core.encoding_table(scheme, L, d, layout=layout, seed=seed)  # float64",
        "dots = core.dot_at_distance(table, k)",
        "cosine = core.similarity(table, kind='cosine')",
    ]
    if scheme == "sinusoidal":
        build = [
            "base = 10000.0",
            _plain_omega(),
            *_plain_table(str(v["layout"]), "torch.arange(L, dtype=torch.float64)", "table"),
        ]
    else:
        build = _PLAIN_TABLES[scheme]
    plain_body = [
        *build,
        "dots = (table[: L - k] * table[k:]).sum(dim=1)",
        "norm = table.norm(dim=1, keepdim=True)",
        "unit = table / torch.where(norm > 0, norm, torch.ones_like(norm))  # a zero row stays 0",
        "cosine = unit @ unit.T",
    ]
    summary = [
        'print(f"{scheme}: table {tuple(table.shape)}, values in [{table.min():.4g}, '
        '{table.max():.4g}]")',
        'print(f"P[i]·P[i+{k}] from {dots.min():.6f} to {dots.max():.6f} over i '
        '(spread {dots.max() - dots.min():.2e})")',
    ]
    return _both("encodings", outputs, params, core_body, plain_body, summary)


# -- context ---------------------------------------------------------------------------------------
_CONTEXT_PLAIN: dict[str, list[str]] = {
    "default": ["inv_freq = inv_freq_original  # no scaling"],
    "linear": ["inv_freq = inv_freq_original / s  # position interpolation: every pair / s"],
    "ntk": [
        "new_base = base * s ** (d / (d - 2))  # NTK-aware: the base grows",
        "inv_freq = 1.0 / new_base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)",
    ],
    "dynamic": [
        "s_now = s * max(L, L0) / L0 - (s - 1)  # dynamic NTK: the factor at length L",
        "new_base = base * s_now ** (d / (d - 2))",
        "inv_freq = 1.0 / new_base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)",
    ],
    "llama3": [
        "wavelen = 2 * math.pi / inv_freq_original",
        "smooth = (L0 / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)",
        "smoothed = (1 - smooth) * inv_freq_original / s + smooth * inv_freq_original",
        "inv_freq = torch.where(wavelen > L0 / low_freq_factor, inv_freq_original / s,",
        "                       torch.where(wavelen < L0 / high_freq_factor, inv_freq_original,",
        "                                   smoothed))  # divided / kept / smoothed",
    ],
    "yarn": [
        "def correction_dim(turns):  # the pair dim that makes `turns` full turns in L0",
        "    return d * math.log(L0 / (turns * 2 * math.pi)) / (2 * math.log(base))",
        "",
        "",
        "low = max(math.floor(correction_dim(beta_fast)), 0)",
        "high = min(math.ceil(correction_dim(beta_slow)), d - 1)",
        "top = high + 0.001 if low == high else high",
        "ramp = ((torch.arange(d // 2, dtype=torch.float64) - low) / (top - low)).clamp(0, 1)",
        "inv_freq = inv_freq_original / s * ramp + inv_freq_original * (1 - ramp)",
    ],
    "longrope": [
        "ext = long_factor if L > L0 else short_factor  # LongRoPE: the long list past L0",
        "inv_freq = inv_freq_original / torch.tensor(ext, dtype=torch.float64)",
    ],
}


def _float_list(name: str, values: Sequence[float], comment: str) -> str:
    """``name = [a, b, …]  # comment``, wrapped at :data:`WRAP` characters."""
    lines, line = [f"{name} = [  # {comment}"], "   "
    for x in values:
        item = f" {lit(float(x))},"
        if len(line) + len(item) > WRAP:
            lines.append(line)
            line = "   "
        line += item
    return "\n".join([*lines, line, "]"])


#: Longest line of a wrapped list in a snippet.
WRAP = 96


def _context(v: Mapping[str, Value]) -> Snippet:
    from posenc_gui.state.context import scheme_kwargs

    scheme = str(v["scheme"])
    outputs = (
        Output("inv_freq", "(d/2,) the frequencies θ'_i after scaling"),
        Output("inv_freq_original", "(d/2,) base^(−2i/d) before scaling"),
        Output("attention_factor", "() what cos and sin are multiplied by"),
    )
    params = [
        _assign(("scheme", "base", "d"), (scheme, v["base"], v["dim"]),
                "scheme, rope_theta, rotary dims"),
        _assign(("s", "L0", "L"), (v["factor"], v["original_length"], v["seq_len"]),
                "factor, original length, current length"),
    ]  # fmt: skip
    yarn_mscale = scheme == "yarn" and float(v["mscale"]) > 0 and float(v["mscale_all_dim"]) > 0
    if scheme == "llama3":
        params.append(
            _assign(
                ("low_freq_factor", "high_freq_factor"),
                (v["low_freq_factor"], v["high_freq_factor"]),
                "Llama 3 bands",
            )
        )
    if scheme == "yarn":
        params.append(
            _assign(
                ("beta_fast", "beta_slow"),
                (v["beta_fast"], v["beta_slow"]),
                "YaRN ramp ends (turns in L0)",
            )
        )
    if yarn_mscale:
        params.append(_assign(("mscale", "mscale_all_dim"), (v["mscale"], v["mscale_all_dim"]),
                              "YaRN attention factor (DeepSeek)"))  # fmt: skip
    if scheme == "longrope":
        from posenc_gui.state.context import PRESET_TITLES, factor_lists

        lists_id = str(v["factor_lists"])
        short, long_ = factor_lists(lists_id)
        where = PRESET_TITLES[lists_id]
        params.append(_float_list("short_factor", short, f"LongRoPE, L <= L0 ({where})"))
        params.append(_float_list("long_factor", long_, f"LongRoPE, L > L0 ({where})"))
    kw = ", ".join(f"{k!r}: {_context_name(k)}" for k in scheme_kwargs(v))
    core_body = [
        "from posenc_gui.core.rope_scaling import scale  # noqa: E402",
        "",
        f"r = scale(scheme, base, d, {{{kw}}}, seq_len=L)",
        "inv_freq, inv_freq_original = r.inv_freq, r.inv_freq_original",
        "attention_factor = torch.tensor(r.attention_factor, dtype=torch.float64)",
    ]
    if scheme == "longrope":
        attention = (
            "attention_factor = torch.tensor(math.sqrt(1 + math.log(s) / math.log(L0)) if s > 1 "
            "else 1.0, dtype=torch.float64)"
        )
    elif scheme != "yarn":
        attention = "attention_factor = torch.tensor(1.0, dtype=torch.float64)  # none"
    elif yarn_mscale:
        attention = ("attention_factor = torch.tensor((0.1 * mscale * math.log(s) + 1) / "
                     "(0.1 * mscale_all_dim * math.log(s) + 1) if s > 1 else 1.0, "
                     "dtype=torch.float64)")  # fmt: skip
    else:
        attention = (
            "attention_factor = torch.tensor(0.1 * math.log(s) + 1 if s > 1 else 1.0, "
            "dtype=torch.float64)"
        )
    plain_body = [
        "inv_freq_original = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)",
        *_CONTEXT_PLAIN[scheme],
        attention,
    ]
    summary = [
        'print(f"{scheme}: θ\'/θ from {float(inv_freq[0] / inv_freq_original[0]):.4g} (pair 0) "',
        '      f"to {float(inv_freq[-1] / inv_freq_original[-1]):.4g} (last pair); "',
        '      f"attention factor {float(attention_factor):.4f}")',
    ]
    return _both("context", outputs, params, core_body, plain_body, summary, math=True)


def _context_name(kwarg: str) -> str:
    """The snippet's variable for a keyword argument of ``scale``."""
    return {"factor": "s", "max_position_embeddings": "L0",
            "original_max_position_embeddings": "L0"}.get(kwarg, kwarg)  # fmt: skip


def _precision(v: Mapping[str, Value]) -> Snippet:
    from posenc_gui.state.precision import DTYPES, SCORE_SAMPLES

    outputs = (
        Output("angle_error", "(d/2,) angle error at m, wrapped to (−π, π]"),
        Output("cos_error", "(d/2,) cos error at m (table dtype)"),
        Output("sin_error", "(d/2,) sin error at m (table dtype)"),
        Output(
            "score_spread", f"(4,) max − min of q_m·k_(m−r) over the shifts: {', '.join(DTYPES)}"
        ),
    )
    typed = v["vectors"] == "typed"
    params = [
        _assign(("m", "t", "table"), (v["position"], v["angle_dtype"], v["table_dtype"]),
                "position, angle dtype, table dtype ('same': the angle's)"),
        _assign(("d", "base", "r", "R"), (v["dim"], v["base"], v["distance"], v["shift_range"]),
                "head dim, rope_theta, distance, shift range"),
        _assign(("q0", "q1", "k0", "k1"), (v["q0"], v["q1"], v["k0"], v["k1"]),
                "every pair of q, of k") if typed else _assign(("seed",), (v["seed"],),
                                                               "seed of q, k"),
    ]  # fmt: skip
    vectors = (
        ["q = torch.tensor([q0, q1], dtype=torch.float64).repeat(d // 2)",
         "k = torch.tensor([k0, k1], dtype=torch.float64).repeat(d // 2)"]
        if typed else
        ["q, k = torch.randn(2, d, dtype=torch.float64, "
         "generator=torch.Generator().manual_seed(seed))"]
    )  # fmt: skip
    n = SCORE_SAMPLES - 1
    shared = [
        "lo, hi = math.log(max(r, 1)), math.log(r + R)  # the shifts: log-spaced m",
        f"qm = torch.tensor(sorted({{round(math.exp(lo + (hi - lo) * j / {n})) for j in "
        f"range({n + 1})}}), dtype=torch.float64)",
        *vectors,
        "qa, qb, ka, kb = q[0::2], q[1::2], k[0::2], k[1::2]",
        "spreads = []",
        f"for dt in {list(DTYPES)!r}:  # rotate and dot in float64",
        "    (cm, sm), (cn, sn) = (cos_sin(p, dt, dt if table == 'same' else table)[1:] "
        "for p in (qm, qm - r))",
        "    s = ((qa * cm - qb * sm) * (ka * cn - kb * sn)"
        " + (qa * sm + qb * cm) * (ka * sn + kb * cn)).sum(1)",
        "    s = s[torch.isfinite(s)]  # float16 holds no position above 65504",
        "    spreads.append(s.max() - s.min())",
        "score_spread = torch.stack(spreads)",
    ]
    core_body = [
        "import posenc_gui.core.precision as P  # noqa: E402",
        "",
        "inv_freq = P.inv_freq(d, base)",
        "e = P.errors(torch.tensor([float(m)]), inv_freq, t, t if table == 'same' else table)",
        "angle_error, cos_error, sin_error = e.angle[0], e.cos[0], e.sin[0]",
        "def cos_sin(p, a_dt, t_dt):",
        "    return (None, *(x.double() for x in P.cos_sin(p, inv_freq, a_dt, t_dt)))",
        *shared,
    ]
    plain_body = [
        "inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # float64",
        "D = dict(float64=torch.float64, float32=torch.float32, bfloat16=torch.bfloat16, "
        "float16=torch.float16)",
        "def cos_sin(p, a_dt, t_dt):  # angle in a_dt (both factors cast), cos/sin stored in t_dt",
        "    a = p.to(D[a_dt])[:, None] * inv_freq.to(D[a_dt])",
        "    return a, torch.cos(a).to(D[t_dt]).double(), torch.sin(a).to(D[t_dt]).double()",
        "ref = float(m) * inv_freq[None, :]  # the float64 angle",
        "a, c, s = cos_sin(torch.tensor([float(m)], dtype=torch.float64), t, "
        "t if table == 'same' else table)",
        "e = a.double() - ref",
        "angle_error = (e + 2 * math.pi * torch.floor((math.pi - e) / (2 * math.pi)))[0]",
        "cos_error, sin_error = (c - ref.cos())[0], (s - ref.sin())[0]",
        *shared,
    ]
    summary = [
        'print(f"{t} at m = {m}: largest |angle error| {angle_error.abs().max():.3g} rad, "',
        '      f"|cos error| {cos_error.abs().max():.3g}; score spread per dtype "',
        '      f"{[round(float(x), 6) for x in score_spread]}")',
    ]
    return _both("precision", outputs, params, core_body, plain_body, summary, math=True)


#: The snippet builder of each tab (every tab of the registry must have one: a test checks).
BUILDERS: dict[str, Callable[[Mapping[str, Value]], Snippet]] = {
    "sine": _sine,
    "heatmap": _heatmap,
    "rotation": _rotation,
    "rope": _rope,
    "alibi": _alibi,
    "encodings": _encodings,
    "context": _context,
    "precision": _precision,
}


def has_snippet(tab_id: str) -> bool:
    """Whether tab ``tab_id`` has a snippet builder."""
    return tab_id in BUILDERS


def snippet(tab_id: str, values: Mapping[str, Value] | None = None) -> Snippet:
    """The snippet of ``tab_id`` for ``values`` (validated; missing ones at their defaults).

    :class:`ParamError` for an unknown tab or a value the tab does not accept;
    :class:`LookupError` for a tab without a snippet builder.
    """
    model = get_model(tab_id)
    resolved = model.resolve(dict(values or {}))
    builder = BUILDERS.get(tab_id)
    if builder is None:
        missing = ", ".join(t for t in TAB_IDS if t not in BUILDERS)
        raise LookupError(f"tab {tab_id!r} has no code snippet yet (tabs without one: {missing})")
    return builder(resolved)


__all__ = [
    "BUILDERS",
    "MAX_TABLE_ENTRIES",
    "Output",
    "ParamError",
    "Snippet",
    "has_snippet",
    "heatmap_step",
    "lit",
    "snippet",
]
