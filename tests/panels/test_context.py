"""The long-context tab: presets set every parameter, the command line reports the bands, the
panel shows the model's numbers, bad values and configs are refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from posenc_gui.cli import main
from posenc_gui.panels import get_panel
from posenc_gui.state import ParamState
from posenc_gui.state.context import CUSTOM, PRESET_IDS, ContextModel
from posenc_gui.state.model_config import PRESETS_DIR
from posenc_gui.state.params import ParamError


def _llama31_bands() -> dict[str, int]:
    """Llama 3.1 8B's rule written out from its config: θ_i = 500000^(−2i/128), L₀ = 8192,
    low/high_freq_factor 1/4: λ > 8192 divided, λ < 2048 kept, the rest smoothed."""
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    lam = 2 * math.pi / theta
    divided = int((lam > 8192 / 1.0).sum())
    kept = int((lam < 8192 / 4.0).sum())
    return {"kept": kept, "smoothed": 64 - kept - divided, "divided": divided}


def _values(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["values", "--tab", "context", "--no-series", *args]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_values_reports_the_llama_31_bands(capsys: pytest.CaptureFixture[str]) -> None:
    expected = _llama31_bands()
    assert expected == {"kept": 29, "smoothed": 6, "divided": 29}
    out = _values(capsys, "--set", "preset=llama-3.1-8b")
    assert out["bands"] == expected
    assert out["attention_factor"] == 1.0
    inv, orig = np.asarray(out["inv_freq"]), np.asarray(out["inv_freq_original"])
    np.testing.assert_allclose(orig, 500000.0 ** (-np.arange(0, 128, 2) / 128), rtol=1e-14)
    np.testing.assert_allclose(inv[-1], orig[-1] / 8.0, rtol=1e-14)  # divided by s
    assert inv[0] == orig[0]  # kept


def test_values_reads_a_model_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = json.loads((PRESETS_DIR / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data["config"]), encoding="utf-8")
    assert main(["values", "--config", str(path), "--no-series"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tab"] == "context" and out["bands"] == _llama31_bands()
    assert out["params"]["preset"] == CUSTOM and out["params"]["factor"] == 8.0


@pytest.mark.parametrize(
    ("change", "field"),
    [({"rope_theta": "big"}, "rope_theta"), ({"hidden_size": None}, "head_dim")],
)
def test_a_bad_config_exits_2_naming_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict[str, object], field: str
) -> None:
    data = json.loads((PRESETS_DIR / "llama-3.1-8b.json").read_text(encoding="utf-8"))["config"]
    data.update(change)
    data = {k: v for k, v in data.items() if v is not None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["values", "--config", str(path), "--no-series"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err


def test_choosing_a_preset_sets_every_parameter_at_once() -> None:
    state = ParamState(ContextModel, {"preset": CUSTOM, "scheme": "linear", "factor": 2.0})
    seen: list[tuple[str, object]] = []
    state.changed.connect(lambda name, value: seen.append((name, value)))
    state.set("preset", "deepseek-v3")
    v = state.values()
    assert (v["scheme"], v["dim"], v["factor"], v["original_length"]) == ("yarn", 64, 40.0, 4096)
    assert (v["beta_fast"], v["beta_slow"], v["mscale"], v["mscale_all_dim"]) == (32, 1, 1, 1)
    assert v["seq_len"] == 163840 and v["base"] == 10000.0
    assert ("preset", "deepseek-v3") in seen and ("scheme", "yarn") in seen
    # moving a parameter of the scheme away from the preset makes the settings custom ...
    state.set("factor", 20.0)
    assert state.get("preset") == CUSTOM and state.get("scheme") == "yarn"
    # ... the length shown does not
    state.set("preset", "qwen2.5-7b-yarn")
    state.set("seq_len", 4096)
    assert state.get("preset") == "qwen2.5-7b-yarn"


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_every_preset_is_a_valid_state(preset: str) -> None:
    values = ContextModel.resolve({"preset": preset})
    r = ContextModel.readouts(values)
    assert sum(r["bands"].values()) == values["dim"] // 2
    assert all(math.isfinite(x) and x > 0 for x in r["inv_freq"])


@pytest.mark.parametrize(
    ("name", "text"),
    [("factor", "0.5"), ("factor", "eight"), ("dim", "7"), ("scheme", "su"),
     ("low_freq_factor", "4"), ("beta_slow", "40")],
)  # fmt: skip
def test_a_bad_typed_value_is_refused(name: str, text: str) -> None:
    state = ParamState(ContextModel)
    before = state.values()
    with pytest.raises(ParamError, match=name):
        state.set(name, ContextModel.param(name).parse(text))
    assert state.values() == before


def test_the_panel_shows_the_models_frequencies(qtbot: QtBot) -> None:
    cls = get_panel("context")
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    panel.refresh_now()
    for preset in ("llama-3.1-8b", "qwen2.5-7b-yarn"):
        panel.state.set("preset", preset)
        panel.refresh_now()
        r = panel.readouts()
        data = panel.data()
        np.testing.assert_allclose(
            data["wavelengths"]["wavelength"].values,
            2 * np.pi / np.asarray(r["inv_freq"]),
            rtol=1e-12,
        )
        band = np.asarray(data["wavelengths"]["band"].values)
        assert [int((band == k).sum()) for k in range(3)] == list(r["bands"].values())
        att = r["attention_factor"]
        assert data["scores"]["score_after"].values[0] == pytest.approx(
            att**2 * np.mean(np.cos(np.asarray(r["inv_freq"]))), rel=1e-12
        )


def test_params_lists_the_presets_with_titles_and_sources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["params", "--tab", "context"]) == 0
    out = json.loads(capsys.readouterr().out)
    listed = {p["id"]: p for p in out["presets"]}
    assert set(listed) == {p.stem for p in PRESETS_DIR.glob("*.json")}
    for pid, entry in listed.items():
        data = json.loads((PRESETS_DIR / f"{pid}.json").read_text(encoding="utf-8"))
        assert entry["title"] == data["title"] and entry["source"] == data["source"]
        assert "huggingface.co" in entry["source"]


def test_coverage_is_the_swept_share_of_the_circle() -> None:
    """Per pair, min(1, L₀·θ_i/2π) in training and min(1, L·θ'_i/2π) at L, written out here:
    linear interpolation at exactly L = s·L₀ reaches no new angle; no scaling at 4·L₀ reaches
    new angles on every pair short of a full turn in training."""
    d, base, l0 = 64, 10000.0, 4096
    theta = base ** (-np.arange(0, d, 2) / d)
    v = ContextModel.resolve({"preset": CUSTOM, "scheme": "linear", "base": base, "dim": d,
                              "factor": 4.0, "original_length": l0, "seq_len": 4 * l0})  # fmt: skip
    r = ContextModel.readouts(v)
    train = np.minimum(1, l0 * theta / (2 * np.pi))
    np.testing.assert_allclose(r["coverage_training"], train, rtol=1e-13)
    np.testing.assert_allclose(r["coverage_target"], train, rtol=1e-13)
    assert r["pairs_unseen"] == 0
    r = ContextModel.readouts(ContextModel.resolve({**v, "scheme": "default"}))
    np.testing.assert_allclose(
        r["coverage_target"], np.minimum(1, 4 * l0 * theta / (2 * np.pi)), rtol=1e-13
    )
    short = int((l0 * theta < 2 * np.pi).sum())
    assert r["pairs_unseen"] == short > 0


def test_temperature_is_the_softmax_of_the_scaled_scores() -> None:
    """The softmax over the score distances, each weighted by its run of whole numbers, with
    the logits √d·a·mean cos(r·θ'_i): a = 1 without the factor, att² with it."""
    v = ContextModel.resolve({"preset": "qwen2.5-7b-yarn"})
    r = ContextModel.readouts(v)
    inv, att, d = np.asarray(r["inv_freq"]), r["attention_factor"], v["dim"]
    dist = np.asarray(r["temperature_distance"], dtype=np.float64)
    edges = np.concatenate([[0.5], (dist[1:] + dist[:-1]) / 2, [v["seq_len"] + 0.5]])
    w = np.diff(edges)
    assert w.sum() == pytest.approx(v["seq_len"])
    mean = np.cos(dist[:, None] * inv[None, :]).mean(axis=1)
    for tag, a in (("without", 1.0), ("with", att**2)):
        z = np.sqrt(d) * a * mean
        share = w * np.exp(z - z.max())
        share /= share.sum()
        np.testing.assert_allclose(r[f"per_token_{tag}"], share / w, rtol=1e-9)
        h = -(share * np.log(share / w)).sum()
        assert r[f"entropy_{tag}"] == pytest.approx(h, rel=1e-9)
    assert att > 1 and r["entropy_with"] < r["entropy_without"]  # the factor sharpens
    assert r["near_share_with"] > r["near_share_without"]


def test_longrope_dim_follows_its_lists() -> None:
    v = ContextModel.resolve({"preset": CUSTOM, "scheme": "longrope"})
    assert v["dim"] == 2 * len(json.loads((PRESETS_DIR / "phi-3.5-mini.json").read_text(
        encoding="utf-8"))["config"]["rope_scaling"]["short_factor"])  # fmt: skip
    with pytest.raises(ParamError, match="dim"):
        ContextModel.resolve({"preset": CUSTOM, "scheme": "longrope", "dim": 128})
    r = ContextModel.readouts(ContextModel.resolve({"preset": "phi-3.5-mini"}))
    assert r["attention_factor"] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


def _angle_panel(qtbot: QtBot, **values: object) -> tuple[object, dict[str, object]]:
    cls = get_panel("context")
    panel = cls(ParamState(cls.model, {"preset": CUSTOM, **values}))
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    panel.refresh_now()
    return panel, panel.data()["angle"]


def test_the_angle_plot_shows_m_theta_mod_2pi(qtbot: QtBot) -> None:
    """The plotted angle is (m·θ'_i) mod 2π, written out here from θ_i = base^(−2i/d) and
    linear interpolation θ'_i = θ_i/s; the training curve is m·θ_i up to L₀."""
    d, base, s, l0, pair = 64, 10000.0, 4.0, 4096, 20
    panel, data = _angle_panel(qtbot, scheme="linear", base=base, dim=d, factor=s,
                               original_length=l0, seq_len=4 * l0, pair=pair)  # fmt: skip
    theta = base ** (-2 * pair / d)
    m, phi = data["position"].values, data["angle"].values
    assert m[0] == 0 and m[-1] == 4 * l0 and 900 <= m.size <= 1000
    for k in (0, 1, 137, m.size // 2, m.size - 1):
        assert phi[k] == pytest.approx(math.fmod(m[k] * theta / s, 2 * math.pi), abs=1e-9)
    m0, phi0 = data["position_training"].values, data["angle_training"].values
    assert m0[-1] == l0
    for k in (3, m0.size - 1):
        assert phi0[k] == pytest.approx(math.fmod(m0[k] * theta, 2 * math.pi), abs=1e-9)
    # the line is broken at each wrap and nowhere else
    line = panel.ang_target  # type: ignore[attr-defined]
    connect = np.asarray(line.opts["connect"])[:-1]
    assert list(connect) == list(np.diff(phi) >= 0) and not connect.all()
    # a pair turning more than π between samples is drawn as its samples, not joined
    panel.state.set("pair", 0)  # type: ignore[attr-defined]
    panel.refresh_now()  # type: ignore[attr-defined]
    phi = panel.data()["angle"]["angle"].values  # type: ignore[attr-defined]
    assert line.getData()[0].size == 0
    np.testing.assert_array_equal(panel.ang_target_dots.getData()[1], phi)  # type: ignore[attr-defined]
    assert "aliased" in panel.ang_plot.getPlotItem().titleLabel.text  # type: ignore[attr-defined]


def test_the_untrained_band_is_the_angles_training_never_reached(qtbot: QtBot) -> None:
    """Low-frequency pair: [L₀·θ_i, 2π) shaded, and angle_unreached is its coverage_unseen;
    high-frequency pair (a full turn within L₀): nothing shaded."""
    d, base, l0 = 64, 10000.0, 4096
    low = d // 2 - 1
    panel, data = _angle_panel(qtbot, scheme="default", base=base, dim=d, original_length=l0,
                               seq_len=4 * l0, pair=low)  # fmt: skip
    theta = base ** (-2 * low / d)
    assert l0 * theta < 2 * math.pi
    np.testing.assert_allclose(data["untrained"].values, [l0 * theta, 2 * math.pi], rtol=1e-12)
    ((_x, lo, hi),) = panel.ang_untrained.envelope()  # type: ignore[attr-defined]
    np.testing.assert_allclose(lo, l0 * theta, rtol=1e-12)
    np.testing.assert_allclose(hi, 2 * math.pi, rtol=1e-12)
    r = panel.readouts()  # type: ignore[attr-defined]
    expected = min(1.0, 4 * l0 * theta / (2 * math.pi)) - l0 * theta / (2 * math.pi)
    assert r["angle_unreached"] == pytest.approx(expected, rel=1e-12)
    assert r["angle_unreached"] == r["coverage_unseen"][low]
    panel.state.set("pair", 0)  # type: ignore[attr-defined]
    panel.refresh_now()  # type: ignore[attr-defined]
    assert panel.data()["angle"]["untrained"].values.size == 0  # type: ignore[attr-defined]
    assert panel.ang_untrained.envelope() == []  # type: ignore[attr-defined]
    assert panel.readouts()["angle_unreached"] == 0.0  # type: ignore[attr-defined]


def test_the_pair_is_clamped_when_dim_shrinks() -> None:
    state = ParamState(ContextModel, {"preset": CUSTOM, "scheme": "default", "dim": 128})
    state.set("pair", 63)
    state.set("dim", 32)
    assert state.get("pair") == 15
    assert ContextModel.resolve({"preset": "deepseek-v3"})["pair"] == 31
    with pytest.raises(ParamError, match="pair"):
        ContextModel.resolve({"preset": CUSTOM, "dim": 32, "pair": 16})


def test_values_reports_the_angle(capsys: pytest.CaptureFixture[str]) -> None:
    out = _values(capsys, "--set", "preset=llama-3.1-8b")
    r = ContextModel.readouts(ContextModel.resolve({"preset": "llama-3.1-8b"}))
    assert out["angle_unreached"] == r["coverage_unseen"][63] > 0
