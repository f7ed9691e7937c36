"""A model's RoPE settings, read from a Hugging Face-style ``config.json``; bundled presets.

What is read (everything else in the file is ignored):

* ``rope_theta`` (GPT-NeoX spells it ``rotary_emb_base``): the base;
* the head dimension: ``qk_rope_head_dim`` (DeepSeek's rotary part of the head), else
  ``head_dim``, else ``hidden_size / num_attention_heads`` (which must divide evenly);
* ``partial_rotary_factor`` (GPT-NeoX: ``rotary_pct``), default 1: the share of the head that
  is rotated;
* ``max_position_embeddings``;
* ``rope_scaling``: absent or ``null`` for plain RoPE, else an object whose ``rope_type`` (or
  the older spelling ``type``; Phi-3's ``"su"`` is LongRoPE) is one of :data:`ROPE_TYPES`, with
  that scheme's fields (see :data:`REQUIRED` and :data:`OPTIONAL`). LongRoPE's
  ``original_max_position_embeddings`` may sit at the top level (Phi-3) or in ``rope_scaling``.

A malformed config (a wrong type, a missing field, NaN, a number no float holds or beyond the
limits below, an unknown scheme) raises :class:`ConfigError` whose message names the field
(``rope_scaling.factor must be a number >= 1, got 'x'``). No Qt and no torch here: the
frequencies come from :mod:`posenc_gui.core.rope_scaling` with :meth:`ModelConfig.scheme_params`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from posenc_gui.state import jsonfile
from posenc_gui.state.params import echo

__all__ = [
    "MAX_CONFIG_BYTES",
    "OPTIONAL",
    "PRESETS_DIR",
    "REQUIRED",
    "ROPE_TYPES",
    "ConfigError",
    "ModelConfig",
    "PresetInfo",
    "load_preset",
    "parse_config",
    "presets",
    "read_config",
]

#: The ``rope_scaling`` types a config may name.
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3")
#: Older names of a type, read as the type they stand for.
_ALIASES = {"su": "longrope"}
#: The fields of ``rope_scaling`` each type requires.
REQUIRED: Mapping[str, tuple[str, ...]] = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "longrope": ("short_factor", "long_factor"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}
#: The fields of ``rope_scaling`` each type reads when present.
OPTIONAL: Mapping[str, tuple[str, ...]] = {
    "default": (),
    "linear": (),
    "dynamic": (),
    "yarn": (
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
        "truncate",
    ),
    "longrope": ("factor", "attention_factor", "original_max_position_embeddings"),
    "llama3": (),
}
#: A config file larger than this is refused (Phi-3's config, with its factor lists, is 4 kB).
MAX_CONFIG_BYTES = 1_000_000
#: Limits that keep the maths finite (far beyond any published model).
_MAX_LENGTH = 2**34
_MAX_DIM = 65536
_MAX_THETA = 1e15
_MAX_FACTOR = 1e6
#: Where the bundled presets live (one JSON file each).
PRESETS_DIR = Path(__file__).resolve().parents[1] / "resources" / "models"


class ConfigError(ValueError):
    """A model config that cannot be used; the message names the field and what it must be."""


@dataclass(frozen=True)
class ModelConfig:
    """The RoPE settings of one model (scalars and factor lists only).

    ``head_dim`` is the full head (or DeepSeek's rotary part); :attr:`rotary_dim` the rotated
    dimensions. ``scaling`` holds the ``rope_scaling`` fields read for ``rope_type`` (lists as
    tuples), with ``original_max_position_embeddings`` resolved for LongRoPE.
    """

    rope_theta: float
    head_dim: int
    max_position_embeddings: int
    partial_rotary_factor: float = 1.0
    rope_type: str = "default"
    scaling: Mapping[str, object] = field(default_factory=dict)
    name: str = ""

    @property
    def rotary_dim(self) -> int:
        """``int(head_dim · partial_rotary_factor)``."""
        return int(self.head_dim * self.partial_rotary_factor)

    @property
    def n_pairs(self) -> int:
        """The number of rotated pairs, ``rotary_dim / 2``."""
        return self.rotary_dim // 2

    @property
    def original_length(self) -> int:
        """The length the model was trained at: ``original_max_position_embeddings`` where the
        scheme has one, else ``max_position_embeddings``."""
        value = self.scaling.get("original_max_position_embeddings")
        return value if isinstance(value, int) else self.max_position_embeddings

    @property
    def factor(self) -> float:
        """The context extension ``s`` (1 for plain RoPE); LongRoPE with a separate original
        length: ``max_position_embeddings / original_max_position_embeddings``."""
        if self.rope_type == "longrope" and "original_max_position_embeddings" in self.scaling:
            return self.max_position_embeddings / self.original_length
        value = self.scaling.get("factor", 1.0)
        return float(value) if isinstance(value, int | float) else 1.0

    @property
    def target_length(self) -> int:
        """The length the scaled model is meant for: the larger of
        ``max_position_embeddings`` and ``original_length · factor``."""
        return max(self.max_position_embeddings, round(self.original_length * self.factor))

    def scheme_params(self) -> dict[str, object]:
        """Keyword arguments for :func:`posenc_gui.core.rope_scaling.scale` with scheme
        :attr:`rope_type` (base and dim are :attr:`rope_theta` and :attr:`rotary_dim`)."""
        s = dict(self.scaling)
        if self.rope_type == "dynamic":
            return {"factor": s["factor"], "max_position_embeddings": self.max_position_embeddings}
        if self.rope_type == "yarn":
            s.setdefault("original_max_position_embeddings", self.max_position_embeddings)
            return s
        if self.rope_type == "longrope":
            s["original_max_position_embeddings"] = self.original_length
            s["factor"] = self.factor
            return s
        return s


@dataclass(frozen=True)
class PresetInfo:
    """A bundled model configuration: its id (file name), title and where its numbers come from."""

    id: str
    title: str
    source: str


# -- checks ------------------------------------------------------------------------------------
def _number(
    data: Mapping[str, object], key: str, where: str, *, minimum: float, maximum: float,
    strict: bool = False,
) -> float:  # fmt: skip
    value = data[key]
    name = where + key
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    real = float(value) if ok else math.nan  # type: ignore[arg-type]
    low_ok = real > minimum if strict else real >= minimum
    if not (math.isfinite(real) and low_ok and real <= maximum):
        rel = ">" if strict else ">="
        raise ConfigError(
            f"{name} must be a number {rel} {minimum:g} and <= {maximum:g}, got {echo(value)}"
        )
    return real


def _integer(
    data: Mapping[str, object], key: str, where: str, *, minimum: int, maximum: int
) -> int:
    value = data[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 4096.0: some tools write integers as floats
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
        raise ConfigError(
            f"{where}{key} must be an integer in [{minimum}, {maximum}], got {echo(value)}"
        )
    return value


def _present(data: Mapping[str, object], key: str) -> bool:
    return data.get(key) is not None


def _first(data: Mapping[str, object], *keys: str) -> str | None:
    return next((k for k in keys if _present(data, k)), None)


def _missing(name: str, what: str) -> ConfigError:
    return ConfigError(f"{name} is missing: {what}")


def _factor_list(data: Mapping[str, object], key: str, n: int) -> tuple[float, ...]:
    value = data[key]
    name = f"rope_scaling.{key}"
    if not isinstance(value, list):
        raise ConfigError(f"{name} must be a list of {n} numbers, got {echo(value)}")
    if len(value) != n:
        raise ConfigError(f"{name} must hold {n} numbers (one per rotated pair), got {len(value)}")
    out = []
    for i, item in enumerate(value):
        out.append(_number({f"{key}[{i}]": item}, f"{key}[{i}]", "rope_scaling.",
                           minimum=0.0, maximum=_MAX_FACTOR, strict=True))  # fmt: skip
    return tuple(out)


# -- parsing -----------------------------------------------------------------------------------
def parse_config(data: object, name: str = "") -> ModelConfig:
    """The :class:`ModelConfig` of a parsed ``config.json`` (a dict); :class:`ConfigError`
    naming the field when it is malformed or names a scheme this app does not know."""
    if not isinstance(data, dict):
        raise ConfigError(f"a model config must be a JSON object, got {echo(data)}")
    theta_key = _first(data, "rope_theta", "rotary_emb_base")
    if theta_key is None:
        raise _missing("rope_theta", "the RoPE base (e.g. 10000.0)")
    theta = _number(data, theta_key, "", minimum=1.0, maximum=_MAX_THETA, strict=True)
    head_dim = _head_dim(data)
    if not _present(data, "max_position_embeddings"):
        raise _missing("max_position_embeddings", "the context length")
    max_pos = _integer(data, "max_position_embeddings", "", minimum=1, maximum=_MAX_LENGTH)
    prf_key = _first(data, "partial_rotary_factor", "rotary_pct")
    prf = 1.0
    if prf_key is not None:
        prf = _number(data, prf_key, "", minimum=0.0, maximum=1.0, strict=True)
    rdim = int(head_dim * prf)
    if rdim < 2 or rdim % 2:
        raise ConfigError(
            f"{prf_key or 'head_dim'}: the rotated dimensions int({head_dim} * {prf:g}) = {rdim} "
            "must be an even number >= 2"
        )
    rope_type, scaling = _scaling(data, rdim // 2, max_pos)
    return ModelConfig(theta, head_dim, max_pos, prf, rope_type, scaling, name)


def _head_dim(data: Mapping[str, object]) -> int:
    key = _first(data, "qk_rope_head_dim", "head_dim")
    if key is not None:
        return _integer(data, key, "", minimum=2, maximum=_MAX_DIM)
    if not _present(data, "hidden_size"):
        raise _missing("head_dim", "give head_dim, or hidden_size and num_attention_heads")
    if not _present(data, "num_attention_heads"):
        raise _missing("num_attention_heads", "needed with hidden_size when head_dim is absent")
    hidden = _integer(data, "hidden_size", "", minimum=2, maximum=_MAX_DIM * 4096)
    heads = _integer(data, "num_attention_heads", "", minimum=1, maximum=65536)
    if hidden % heads:
        raise ConfigError(
            f"hidden_size ({hidden}) must be a multiple of num_attention_heads ({heads})"
        )
    if hidden // heads > _MAX_DIM:
        raise ConfigError(f"hidden_size / num_attention_heads must be <= {_MAX_DIM}")
    return hidden // heads


def _scaling(
    data: Mapping[str, object], n_pairs: int, max_pos: int
) -> tuple[str, dict[str, object]]:
    raw = data.get("rope_scaling")
    if raw is None:
        return "default", {}
    if not isinstance(raw, dict):
        raise ConfigError(f"rope_scaling must be an object or null, got {echo(raw)}")
    type_key = _first(raw, "rope_type", "type")
    if type_key is None:
        raise _missing("rope_scaling.rope_type", "one of " + ", ".join(ROPE_TYPES))
    given = raw[type_key]
    rope_type = _ALIASES.get(given, given) if isinstance(given, str) else given
    if rope_type not in ROPE_TYPES:
        accepted = ", ".join(repr(t) for t in ROPE_TYPES)
        raise ConfigError(f"rope_scaling.{type_key} must be one of {accepted}, got {echo(given)}")
    assert isinstance(rope_type, str)
    for key in REQUIRED[rope_type]:
        if not _present(raw, key):
            raise _missing(f"rope_scaling.{key}", f"required by rope_type {rope_type!r}")
    out: dict[str, object] = {}
    w = "rope_scaling."
    for key in REQUIRED[rope_type] + OPTIONAL[rope_type]:
        if not _present(raw, key):
            continue
        if key in ("short_factor", "long_factor"):
            out[key] = _factor_list(raw, key, n_pairs)
        elif key == "original_max_position_embeddings":
            out[key] = _integer(raw, key, w, minimum=1, maximum=_MAX_LENGTH)
        elif key == "truncate":
            if not isinstance(raw[key], bool):
                raise ConfigError(
                    f"rope_scaling.truncate must be true or false, got {echo(raw[key])}"
                )
            out[key] = raw[key]
        elif key == "factor":
            lo = 0.0 if rope_type == "longrope" else 1.0
            out[key] = _number(raw, key, w, minimum=lo, maximum=_MAX_FACTOR, strict=lo == 0.0)
        elif key in ("mscale", "mscale_all_dim"):
            out[key] = _number(raw, key, w, minimum=0.0, maximum=_MAX_FACTOR)
        else:  # beta_fast, beta_slow, attention_factor, low/high_freq_factor
            out[key] = _number(raw, key, w, minimum=0.0, maximum=_MAX_FACTOR, strict=True)
    if rope_type == "longrope" and "original_max_position_embeddings" not in out:
        if _present(data, "original_max_position_embeddings"):
            out["original_max_position_embeddings"] = _integer(
                data, "original_max_position_embeddings", "", minimum=1, maximum=_MAX_LENGTH
            )
        elif "factor" not in out:
            raise _missing(
                "rope_scaling.factor",
                "LongRoPE needs factor or original_max_position_embeddings",
            )
    _check_relations(rope_type, out, max_pos)
    return rope_type, out


def _check_relations(rope_type: str, s: Mapping[str, object], max_pos: int) -> None:
    if rope_type == "yarn":
        fast, slow = s.get("beta_fast", 32.0), s.get("beta_slow", 1.0)
        assert isinstance(fast, float) and isinstance(slow, float)
        if fast < slow:
            raise ConfigError(f"rope_scaling.beta_fast ({echo(fast)}) must be >= beta_slow "
                              f"({echo(slow)})")  # fmt: skip
    if rope_type == "llama3":
        low, high = s["low_freq_factor"], s["high_freq_factor"]
        assert isinstance(low, float) and isinstance(high, float)
        if high <= low:
            raise ConfigError(
                f"rope_scaling.high_freq_factor ({echo(high)}) must be > low_freq_factor "
                f"({echo(low)})"
            )
    if rope_type == "longrope" and "original_max_position_embeddings" in s:
        original = s["original_max_position_embeddings"]
        assert isinstance(original, int)
        if original > max_pos:
            raise ConfigError(
                f"original_max_position_embeddings ({original}) must be <= "
                f"max_position_embeddings ({max_pos})"
            )


def read_config(path: str | os.PathLike[str]) -> ModelConfig:
    """The :class:`ModelConfig` of the ``config.json`` at ``path``; :class:`ConfigError` when it
    is not a regular file, too large, not JSON or malformed (:class:`OSError` when unreadable)."""
    data = jsonfile.read(path, "model config", ConfigError, MAX_CONFIG_BYTES)
    return parse_config(data, Path(path).name)


# -- presets -----------------------------------------------------------------------------------
def _preset_file(preset_id: str) -> dict[str, object]:
    path = PRESETS_DIR / f"{preset_id}.json"
    if "/" in preset_id or "\\" in preset_id or not path.is_file():
        known = ", ".join(p.id for p in presets())
        raise ConfigError(f"no bundled model config {preset_id!r}; known: {known}")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def presets() -> list[PresetInfo]:
    """The bundled model configurations, sorted by id."""
    out = []
    for path in sorted(PRESETS_DIR.glob("*.json"), key=lambda p: p.stem):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append(PresetInfo(path.stem, str(data["title"]), str(data["source"])))
    return out


def load_preset(preset_id: str) -> ModelConfig:
    """The :class:`ModelConfig` of bundled preset ``preset_id`` (see :func:`presets`)."""
    data = _preset_file(preset_id)
    return parse_config(data["config"], str(data["title"]))
