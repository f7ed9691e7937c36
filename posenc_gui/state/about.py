"""About this view: per tab, what it shows, the formulas (plain Unicode) and the papers.

Help ▸ About this view shows :func:`about` of the current tab. Every tab of the registry must
have an entry in :data:`ABOUT` (a test checks). Qt-free; the window renders it as HTML.
"""

from __future__ import annotations

from dataclasses import dataclass

from posenc_gui.state.registry import TAB_IDS, get_model


@dataclass(frozen=True)
class Paper:
    """A paper behind a view: authors, year, title, venue and arXiv id."""

    authors: str
    year: int
    title: str
    venue: str
    arxiv: str

    @property
    def url(self) -> str:
        """The paper's arXiv abstract page."""
        return f"https://arxiv.org/abs/{self.arxiv}"

    def citation(self) -> str:
        """``Authors (year). Title. Venue. arXiv:id``."""
        return f"{self.authors} ({self.year}). {self.title}. {self.venue}. arXiv:{self.arxiv}"


@dataclass(frozen=True)
class About:
    """What a tab shows, its formulas and the papers they come from."""

    shows: str
    formulas: tuple[str, ...]
    papers: tuple[Paper, ...]
    notes: str = ""


VASWANI = Paper(
    "Vaswani, Shazeer, Parmar, Uszkoreit, Jones, Gomez, Kaiser & Polosukhin",
    2017,
    "Attention Is All You Need",
    "NeurIPS 2017",
    "1706.03762",
)
ROFORMER = Paper(
    "Su, Lu, Pan, Murtadha, Wen & Liu",
    2021,
    "RoFormer: Enhanced Transformer with Rotary Position Embedding",
    "Neurocomputing 568 (2024)",
    "2104.09864",
)
ALIBI = Paper(
    "Press, Smith & Lewis",
    2021,
    "Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation",
    "ICLR 2022",
    "2108.12409",
)
GEHRING = Paper(
    "Gehring, Auli, Grangier, Yarats & Dauphin",
    2017,
    "Convolutional Sequence to Sequence Learning",
    "ICML 2017",
    "1705.03122",
)
PI = Paper(
    "Chen, Wong, Chen & Tian",
    2023,
    "Extending Context Window of Large Language Models via Positional Interpolation",
    "arXiv preprint",
    "2306.15595",
)
YARN = Paper(
    "Peng, Quesnelle, Fan & Shippole",
    2023,
    "YaRN: Efficient Context Window Extension of Large Language Models",
    "ICLR 2024",
    "2309.00071",
)
LLAMA3 = Paper(
    "Llama Team, AI @ Meta",
    2024,
    "The Llama 3 Herd of Models",
    "arXiv preprint",
    "2407.21783",
)
LONGROPE = Paper(
    "Ding, Zhang, Zhang, Xu, Shang, Xu, Yang & Yang",
    2024,
    "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens",
    "ICML 2024",
    "2402.13753",
)

ABOUT: dict[str, About] = {
    "sine": About(
        shows=(
            "One sinusoid A·sin(2πft+φ) and its cosine partner over two seconds, with a cursor "
            "at time t; the point (A·cos θ, A·sin θ) it traces on a circle; and the frequency "
            "ladder of a sinusoidal positional encoding: its first dimensions drawn as waves "
            "over the positions, each pair one frequency ω_i slower than the last, and the "
            "encoding vector PE[p] read off at position p."
        ),
        formulas=(
            "y(t) = A·sin(2πf·t + φ),   x(t) = A·cos(2πf·t + φ),   period T = 1/f",
            "ω_i = base^(−2i/d),   i = 0 … d/2 − 1",
            "PE[p, 2i] = sin(p·ω_i),   PE[p, 2i+1] = cos(p·ω_i)",
            "wavelength λ_i = 2π/ω_i  (from 2π to 2π·base^((d−2)/d) positions)",
        ),
        papers=(VASWANI,),
        notes="The paper uses base = 10000 and the interleaved layout shown here (§3.5).",
    ),
    "heatmap": About(
        shows=(
            "The whole sinusoidal table PE[position, dimension] as a heatmap (computed at the "
            "screen's resolution: a pixel covering several positions shows their mean), the "
            "encoding vector at the selected position, the selected dimension over the "
            "positions with its sin/cos partner, and the wavelength of every pair against the "
            "length of the sequence."
        ),
        formulas=(
            "ω_i = base^(−2i/d),   λ_i = 2π/ω_i",
            "interleaved (paper): PE[p, 2i] = sin(p·ω_i),   PE[p, 2i+1] = cos(p·ω_i)",
            "concat: PE[p, i] = sin(p·ω_i),   PE[p, d/2 + i] = cos(p·ω_i)",
            "|PE[p]|² = Σ_i (sin² + cos²) = d/2 for every p",
            "pair i turns fully within L positions ⇔ (L − 1)·ω_i ≥ 2π ⇔ λ_i ≤ L − 1",
        ),
        papers=(VASWANI,),
        notes=(
            "“concat” (all sines, then all cosines) is what many codebases do; both layouts "
            "hold the same numbers in a different column order."
        ),
    ),
    "rotation": About(
        shows=(
            "The 2-D rotation R(θ) acting on a vector v, with its properties checked live "
            "(length kept, det R = 1, RᵀR = I, R(θ₁)R(θ₂) = R(θ₁+θ₂)); the sinusoidal pair of "
            "frequency ω_i at position p moved to p + k by one fixed matrix that depends on k "
            "only; and RoPE's block-diagonal matrix R_m."
        ),
        formulas=(
            "R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]",
            "(sin (p+k)ω, cos (p+k)ω)ᵀ = M_k·(sin pω, cos pω)ᵀ,   "
            "M_k = [[cos kω, sin kω], [−sin kω, cos kω]] = R(−kω)",
            "R_m = diag(R(m·θ_0), …, R(m·θ_{d/2−1})),   θ_i = base^(−2i/d)",
            "R_mᵀ·R_n = R_{n−m}",
        ),
        papers=(VASWANI, ROFORMER),
        notes=(
            "Vaswani et al. chose sinusoids because “for any fixed offset k, PE_{pos+k} can be "
            "represented as a linear function of PE_{pos}”: that function is M_k. RoFormer turns "
            "the same rotation into a way to encode positions (§3.2)."
        ),
    ),
    "rope": About(
        shows=(
            "Rotary position embedding on one query q at position m and one key k at position "
            "n: the selected pair of each rotating on a circle, the attention score and its "
            "invariance when m and n shift together, the score against the distance m − n with "
            "RoFormer's long-term-decay bound, the score matrix over a window of positions "
            "(constant along its diagonals), and the interleaved vs half pair layouts."
        ),
        formulas=(
            "θ_i = base^(−2i/d),   pair i of x at position m rotated by m·θ_i",
            "interleaved: pairs (x[2i], x[2i+1]);   half: pairs (x[i], x[i + d/2])",
            "score(m, n) = ⟨R_m q, R_n k⟩ = qᵀ·R_{n−m}·k = Re Σ_i q_i·conj(k_i)·e^{i(m−n)θ_i}",
            "|score| ≤ (max_i |h_{i+1} − h_i|)·Σ_{j=1}^{d/2} |S_j(m−n)|,   "
            "h_i = q_i·conj(k_i),   S_j(r) = Σ_{l<j} e^{i·r·θ_l}",
        ),
        papers=(ROFORMER,),
        notes=(
            "Interleaved pairs are RoFormer's (GPT-J, Meta's LLaMA code); half pairs are "
            "GPT-NeoX's and Hugging Face's rotate_half. The two agree only after permuting q "
            "and k by [0, 2, 4, …, 1, 3, 5, …]. The bound is RoFormer §3.4.3."
        ),
    ),
    "alibi": About(
        shows=(
            "ALiBi: the slope of every head, the causal bias matrix of one head, the bias of "
            "every head against distance, and one query's attention over the keys with and "
            "without the bias (zero or random content logits). Beside it, RoPE's expected "
            "change of the scaled logit against distance, next to ALiBi's linear penalty."
        ),
        formulas=(
            "logit(i, j) = q_i·k_j/√d − m_h·(i − j)   for keys j ≤ i (j > i masked: −∞)",
            "m_h = 2^(−8h/n),   h = 1 … n   (n a power of two)",
            "other n: the p slopes of the power of two p < n, then every other slope of 2p "
            "(h = 1, 3, 5, …) until there are n",
            "RoPE, k = ρq + √(1−ρ²)z:   E[q·R_r k]/√d − E[q·k]/√d = (2ρ/√d)·Σ_i (cos rθ_i − 1)",
        ),
        papers=(ALIBI, ROFORMER),
        notes=(
            "ALiBi adds no position vector to the tokens: the bias on the logits is the whole "
            "encoding. 12 heads: 2^−1 … 2^−8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5."
        ),
    ),
    "encodings": About(
        shows=(
            "One absolute encoding at a time (naive p, normalized p/(L−1), binary, sinusoidal, "
            "or an untrained learned table) as a positions × dimensions table, its first "
            "dimensions as waves, the dot product P[i]·P[i+k] over every i at a fixed "
            "distance k, the cosine similarity of every two rows, and the scheme's verdicts "
            "computed from the table."
        ),
        formulas=(
            "naive: P[p, j] = p;   normalized: P[p, j] = p/(L − 1)",
            "binary: P[p, j] = ⌊p/2^j⌋ mod 2   (bit j, least significant first)",
            "sinusoidal: P[p, 2i] = sin(p·ω_i),   P[p, 2i+1] = cos(p·ω_i),   ω_i = 10000^(−2i/d)",
            "learned (untrained): P[p, j] ~ N(0, 0.02²)",
            "sinusoidal: P[a]·P[a+k] = Σ_i cos(k·ω_i), the same for every position a",
            "cos(P[a], P[b]) = P[a]·P[b] / (|P[a]|·|P[b]|)",
        ),
        papers=(VASWANI, GEHRING),
        notes=(
            "Learned absolute position embeddings go back to convolutional sequence-to-sequence "
            "models (Gehring et al.); Vaswani et al. found them about as good as sinusoids and "
            "kept sinusoids because they may extrapolate to longer sequences."
        ),
    ),
    "context": About(
        shows=(
            "How a model trained at L₀ tokens is stretched to L = s·L₀: every pair's wavelength "
            "2π/θ_i before and after the scheme (log axis), with L₀ and L and the band "
            "boundaries; each pair's factor θ_i/θ'_i, coloured kept / smoothed / divided; and "
            "the score q·R_r k/d for q = k = (1, …, 1) against distance out to L, before and "
            "after (after: times the attention factor squared); the share of the circle each "
            "pair's angle m·θ sweeps in training (m ≤ L₀) and out to L, the pairs reaching "
            "angles they never took in training marked; and the softmax weight per token over "
            "distance without and with the attention factor. The presets are the RoPE "
            "settings of real models' config.json files (File ▸ Open model config… reads "
            "yours)."
        ),
        formulas=(
            "θ_i = base^(−2i/d),   λ_i = 2π/θ_i,   i = 0 … d/2 − 1",
            "linear (PI): θ'_i = θ_i / s",
            "NTK-aware: base' = base · s^(d/(d−2)),   θ'_i = base'^(−2i/d)",
            "dynamic NTK: the same with s' = s·L/L₀ − (s − 1) at the current length L > L₀",
            "YaRN: θ'_i = θ_i·γ_i/s + θ_i·(1 − γ_i),  γ linear in i between the dims making "
            "β_fast and β_slow turns in L₀;  attention factor 0.1·ln s + 1",
            "Llama 3: λ < L₀/high_freq_factor kept, λ > L₀/low_freq_factor divided by s, "
            "between: (1 − σ)·θ/s + σ·θ,  σ = (L₀/λ − low)/(high − low)",
            "LongRoPE: θ'_i = θ_i / f_i,  f = long_factor if L > L₀ else short_factor;  "
            "attention factor √(1 + ln s / ln L₀)",
            "angles swept: min(1, L·θ'_i/2π) of the circle, against min(1, L₀·θ_i/2π) in training",
            "softmax over r = 1 … L of √d·a·(1/(d/2))·Σ cos(r·θ'_i),  a = 1 or att²",
        ),
        papers=(PI, YARN, LLAMA3, LONGROPE, ROFORMER),
        notes=(
            "The schemes follow Hugging Face transformers' modeling_rope_utils, computed in "
            "float64. NTK-aware scaling comes from bloc97's Reddit post (2023), which has no "
            "paper. LongRoPE's per-pair factor lists are searched, not given by a formula: the "
            "tab shows the lists of a bundled model (Phi-3.5 mini instruct's config.json); a "
            "config with other lists is refused. The temperature figure's softmax runs over "
            "the plotted distances, each standing for the whole numbers nearest to it."
        ),
    ),
}

ABOUT["precision"] = About(
    shows=(
        "RoPE in finite precision at long positions. For an angle dtype t (float32, bfloat16, "
        "float16) the inverse frequencies are computed in float64 and cast to t, the position "
        "is cast to t, the angle is their product in t, cos and sin are computed in t and cast "
        "to the table dtype. Shown: the error of every pair at m against float64 (log axis, "
        "each dtype's unit roundoff dashed), the error of one pair against position (up to "
        "10⁶ for cos/sin, 10⁷ for the angle), the score q_m·k_n at a fixed distance r as m "
        "shifts (float64 flat, the others spread), the largest whole number each dtype holds "
        "exactly, and Hugging Face's recipe (angle and cos/sin in float32, cast afterwards) "
        "against computing the angle in the low dtype."
    ),
    formulas=(
        "θ_i = base^(−2i/d) (float64),   angle_t = fl_t(fl_t(m) · fl_t(θ_i))",
        "angle error = wrap(angle_t − m·θ_i) ∈ (−π, π],   cos error = fl_table(cos_t) − cos(m·θ_i)",
        "unit roundoff u = 2^(−p):  float64 2⁻⁵³, float32 2⁻²⁴, bfloat16 2⁻⁸, float16 2⁻¹¹",
        "whole numbers exact up to 2^p:  float64 2⁵³, float32 2²⁴, bfloat16 256, float16 2048",
        "|angle error| ≈ u·m·θ_i:  float32 at m = 10⁶, θ_0 = 1: the spacing of floats is 0.0625",
        "score(m) = Σ_i (R(angle_t(m)) q_i) · (R(angle_t(m − r)) k_i), exact: the same for all m",
    ),
    papers=(
        Paper(
            "Wang, Liu, Du, Zhu, Du, Kawaguchi & Pang",
            2024,
            "When Precision Meets Position: BFloat16 Breaks Down RoPE in Long-Context Training",
            "TMLR 2025",
            "2411.13476",
        ),
        ROFORMER,
    ),
    notes=(
        "float16 holds no number above 65 504: a larger position is infinite and its angles "
        "NaN (values reports null with the reason). torch computes cos/sin of bfloat16 and "
        "float16 tensors on the CPU in float32 and rounds the result, as a GPU kernel does. "
        "The score rotates and multiplies in float64, so its spread is the angles' alone; "
        "float64's own spread (about 10⁻¹⁰ at m = 10⁶) is the rounding of m·θ_i in float64. "
        "Once a dtype's spacing near m is much wider than r, m and m − r mostly round to the "
        "same number and the score settles on q·k, the score at distance 0."
    ),
)


def about(tab_id: str) -> About:
    """The about text of ``tab_id``; :class:`LookupError` when the tab has none."""
    get_model(tab_id)  # ParamError naming the known tabs for an unknown id
    if tab_id not in ABOUT:
        missing = ", ".join(t for t in TAB_IDS if t not in ABOUT)
        raise LookupError(f"tab {tab_id!r} has no about text yet (tabs without one: {missing})")
    return ABOUT[tab_id]


def about_text(tab_id: str) -> str:
    """The about text of ``tab_id`` as plain text (title, what it shows, formulas, papers)."""
    a = about(tab_id)
    model = get_model(tab_id)
    lines = [model.title, "", a.shows, "", "Formulas:"]
    lines += [f"  {f}" for f in a.formulas]
    if a.notes:
        lines += ["", a.notes]
    lines += ["", "Papers:"]
    lines += [f"  {p.citation()} {p.url}" for p in a.papers]
    return "\n".join(lines)
