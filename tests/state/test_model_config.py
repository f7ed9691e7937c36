"""Model configs read from Hugging Face-style config.json: what is read, what is refused (each
refusal names its field), the bundled presets and the lengths they imply."""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from posenc_gui.state.model_config import (
    ROPE_TYPES,
    ConfigError,
    load_preset,
    parse_config,
    presets,
    read_config,
)

LLAMA31: dict[str, Any] = {
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
}


def with_(base: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A deep copy of ``base`` with ``path`` ("a.b") set to ``value`` (``DELETE``: removed)."""
    out = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node[key]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return out


DELETE = object()


def test_a_llama31_config_is_read() -> None:
    c = parse_config(LLAMA31)
    assert (c.rope_theta, c.head_dim, c.rotary_dim, c.n_pairs) == (500000.0, 128, 128, 64)
    assert c.rope_type == "llama3"
    assert (c.original_length, c.target_length, c.factor) == (8192, 131072, 8.0)
    assert c.scheme_params() == {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }


def test_type_and_rope_type_spellings_read_the_same() -> None:
    old = with_(LLAMA31, "rope_scaling.rope_type", DELETE)
    old["rope_scaling"]["type"] = "llama3"
    assert parse_config(old) == parse_config(LLAMA31)


def test_no_rope_scaling_is_plain_rope() -> None:
    for value in (DELETE, None):
        c = parse_config(with_(LLAMA31, "rope_scaling", value))
        assert c.rope_type == "default" and c.scaling == {}
        assert c.original_length == c.target_length == 131072


def test_head_dim_sources() -> None:
    gemma = with_(LLAMA31, "head_dim", 256)  # 4096 / 32 = 128, but head_dim wins
    assert parse_config(gemma).head_dim == 256
    assert parse_config(with_(LLAMA31, "head_dim", None)).head_dim == 128  # null: derived
    deepseek = with_(gemma, "qk_rope_head_dim", 64)
    assert parse_config(deepseek).head_dim == 64


def test_gpt_neox_spellings() -> None:
    neox = {
        "hidden_size": 6144,
        "num_attention_heads": 64,
        "max_position_embeddings": 2048,
        "rotary_pct": 0.25,
        "rotary_emb_base": 10000,
    }
    c = parse_config(neox)
    assert (c.rope_theta, c.partial_rotary_factor, c.rotary_dim) == (10000.0, 0.25, 24)


def test_yarn_and_longrope_lengths() -> None:
    qwen = with_(
        LLAMA31,
        "rope_scaling",
        {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    )
    qwen["max_position_embeddings"] = 32768
    c = parse_config(qwen)
    assert (c.original_length, c.target_length, c.factor) == (32768, 131072, 4.0)
    no_original = with_(qwen, "rope_scaling.original_max_position_embeddings", DELETE)
    params = parse_config(no_original).scheme_params()
    assert params["original_max_position_embeddings"] == 32768  # the reference's fallback
    phi = {
        "hidden_size": 3072,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {"type": "su", "short_factor": [1.0] * 48, "long_factor": [2.0] * 48},
    }
    p = parse_config(phi)
    assert p.rope_type == "longrope" and p.n_pairs == 48
    assert (p.original_length, p.target_length, p.factor) == (4096, 131072, 32.0)
    assert p.scheme_params()["factor"] == 32.0
    assert p.scheme_params()["long_factor"] == (2.0,) * 48


# -- refusals: each names its field ------------------------------------------------------------
REFUSED = [
    ("rope_theta", DELETE, r"^rope_theta is missing"),
    ("rope_theta", "10000", r"^rope_theta must be a number > 1"),
    ("rope_theta", math.nan, r"^rope_theta must be a number > 1 .*got nan"),
    ("rope_theta", True, r"^rope_theta must be a number"),
    ("rope_theta", 1e300, r"^rope_theta must be a number .*<= 1e\+15"),
    ("max_position_embeddings", DELETE, r"^max_position_embeddings is missing"),
    ("max_position_embeddings", 1.5, r"^max_position_embeddings must be an integer"),
    ("max_position_embeddings", 10**40, r"^max_position_embeddings must be an integer.*41-digit"),
    ("hidden_size", DELETE, r"^head_dim is missing"),
    ("num_attention_heads", DELETE, r"^num_attention_heads is missing"),
    ("num_attention_heads", 3, r"^hidden_size \(4096\) must be a multiple of num_attention_heads"),
    ("head_dim", "128", r"^head_dim must be an integer"),
    ("partial_rotary_factor", 0.0, r"^partial_rotary_factor must be a number > 0"),
    ("partial_rotary_factor", 1.5, r"^partial_rotary_factor must be a number .*<= 1"),
    ("partial_rotary_factor", 0.01, r"^partial_rotary_factor: the rotated dimensions"),
    ("rope_scaling", [8.0], r"^rope_scaling must be an object or null"),
    ("rope_scaling.rope_type", DELETE, r"^rope_scaling.rope_type is missing"),
    ("rope_scaling.rope_type", "mrope", r"^rope_scaling.rope_type must be one of 'default', "),
    ("rope_scaling.rope_type", 3, r"^rope_scaling.rope_type must be one of"),
    ("rope_scaling.factor", DELETE, r"^rope_scaling.factor is missing"),
    ("rope_scaling.factor", "8", r"^rope_scaling.factor must be a number >= 1"),
    ("rope_scaling.factor", 0.5, r"^rope_scaling.factor must be a number >= 1"),
    ("rope_scaling.factor", math.inf, r"^rope_scaling.factor must be a number"),
    ("rope_scaling.low_freq_factor", DELETE, r"^rope_scaling.low_freq_factor is missing"),
    ("rope_scaling.high_freq_factor", 1.0, r"^rope_scaling.high_freq_factor \(1\) must be >"),
    (
        "rope_scaling.original_max_position_embeddings",
        -1,
        r"^rope_scaling.original_max_position_embeddings must be an integer",
    ),
]


@pytest.mark.parametrize(("path", "value", "message"), REFUSED)
def test_malformed_configs_are_refused_naming_the_field(
    path: str, value: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(with_(LLAMA31, path, value))


def test_unknown_type_lists_the_accepted_values() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(with_(LLAMA31, "rope_scaling.rope_type", "mrope"))
    assert all(repr(t) in str(err.value) for t in ROPE_TYPES)
    assert str(err.value).endswith("got 'mrope'")


def test_yarn_and_longrope_fields_are_checked() -> None:
    yarn = with_(LLAMA31, "rope_scaling", {"rope_type": "yarn", "factor": 4.0})
    with pytest.raises(ConfigError, match=r"^rope_scaling.truncate must be true or false"):
        parse_config(with_(yarn, "rope_scaling.truncate", "no"))
    with pytest.raises(ConfigError, match=r"^rope_scaling.beta_fast \(1\) must be >= beta_slow"):
        parse_config(with_(with_(yarn, "rope_scaling.beta_fast", 1), "rope_scaling.beta_slow", 2))
    with pytest.raises(ConfigError, match=r"^rope_scaling.mscale must be a number >= 0"):
        parse_config(with_(yarn, "rope_scaling.mscale", -1))
    assert parse_config(with_(yarn, "rope_scaling.truncate", False)).scaling["truncate"] is False
    longrope = with_(
        LLAMA31,
        "rope_scaling",
        {
            "rope_type": "longrope",
            "factor": 4.0,
            "short_factor": [1.0] * 64,
            "long_factor": [1.0] * 63,
        },
    )
    with pytest.raises(ConfigError, match=r"^rope_scaling.long_factor must hold 64 numbers"):
        parse_config(longrope)
    bad_item = with_(longrope, "rope_scaling.long_factor", [1.0] * 63 + ["x"])
    with pytest.raises(ConfigError, match=r"^rope_scaling.long_factor\[63\] must be a number > 0"):
        parse_config(bad_item)
    with pytest.raises(ConfigError, match=r"^rope_scaling.short_factor must be a list of 64"):
        parse_config(with_(longrope, "rope_scaling.short_factor", 1.0))
    no_factor = with_(
        with_(longrope, "rope_scaling.factor", DELETE), "rope_scaling.long_factor", [1.0] * 64
    )
    with pytest.raises(ConfigError, match=r"^rope_scaling.factor is missing"):
        parse_config(no_factor)


def test_a_config_must_be_an_object() -> None:
    with pytest.raises(ConfigError, match=r"^a model config must be a JSON object"):
        parse_config([LLAMA31])


# -- files -------------------------------------------------------------------------------------
def test_read_config_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA31), encoding="utf-8")
    c = read_config(path)
    assert c.name == "config.json" and c.rope_type == "llama3"


def test_a_number_no_float_holds_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA31).replace("500000.0", "1e400"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^rope_theta must be a number .*too large"):
        read_config(path)
    path.write_text(json.dumps(LLAMA31).replace("500000.0", "NaN"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^rope_theta must be a number .*got nan"):
        read_config(path)


def test_files_that_are_not_configs_are_refused(tmp_path: Path) -> None:
    folder = r"^not a model config: .* is not a regular file \(a folder"
    with pytest.raises(ConfigError, match=folder):
        read_config(tmp_path)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        with pytest.raises(ConfigError, match=r"not a regular file \(a named pipe\)"):
            read_config(fifo)
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^not a model config: invalid JSON"):
        read_config(bad)
    with pytest.raises(OSError):
        read_config(tmp_path / "absent.json")


# -- presets -----------------------------------------------------------------------------------
def test_presets_list_id_title_and_source() -> None:
    listed = presets()
    ids = [p.id for p in listed]
    assert ids == sorted(ids) and "llama-3.1-8b" in ids and "deepseek-v3" in ids
    for p in listed:
        assert p.title and "huggingface.co/" in p.source and "config.json" in p.source
        assert load_preset(p.id).name == p.title


def test_preset_lengths() -> None:
    lengths = {
        pid: (load_preset(pid).original_length, load_preset(pid).target_length)
        for pid in ("llama-3.1-8b", "qwen2.5-7b-yarn", "deepseek-v3", "llama-2-7b")
    }
    assert lengths == {
        "llama-3.1-8b": (8192, 131072),
        "qwen2.5-7b-yarn": (32768, 131072),
        "deepseek-v3": (4096, 163840),
        "llama-2-7b": (4096, 4096),
    }
    assert load_preset("gemma-2-9b").head_dim == 256


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^no bundled model config 'gpt-5'; known: deepseek-v3"):
        load_preset("gpt-5")
    with pytest.raises(ConfigError, match=r"^no bundled model config"):
        load_preset("../models/llama-2-7b")
