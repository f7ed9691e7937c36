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
