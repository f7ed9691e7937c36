"""Lesson decks (Qt-free): the JSON schema, validation through the models, the bundled decks."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from posenc_gui.state.deck import (
    BUNDLED_DIR,
    FORMAT,
    MAX_FILE_BYTES,
    SCHEMA_VERSION,
    UNTITLED,
    Deck,
    DeckError,
    Step,
    bundled_decks,
    read_title,
)
from posenc_gui.state.registry import TAB_IDS, get_model

#: Bundled captions fit two lines of the banner at presentation scale on a 1024-wide projector.
MAX_BUNDLED_CAPTION = 125


def _deck_dict() -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": SCHEMA_VERSION,
        "title": "RoPE in three steps",
        "steps": [
            {"tab": "sine", "params": {}, "caption": "Defaults"},
            {"tab": "rope", "params": {"m": 5, "n": 2, "lock": True}, "caption": "m − n = 3"},
            {"tab": "heatmap", "params": {"positions": 30, "dim": 128, "shown_dims": 6}},
        ],
    }


def test_round_trip_is_exact() -> None:
    deck = Deck.from_dict(_deck_dict())
    assert deck.title == "RoPE in three steps" and len(deck) == 3
    again = Deck.loads(deck.dumps())
    assert again == deck
    assert json.loads(deck.dumps()) == {
        **_deck_dict(),
        "steps": [
            {"tab": "sine", "params": {}, "caption": "Defaults"},
            {"tab": "rope", "params": {"m": 5, "n": 2, "lock": True}, "caption": "m − n = 3"},
            {"tab": "heatmap", "params": {"positions": 30, "dim": 128, "shown_dims": 6}},
        ],
    }


def test_focus_is_kept_and_saved() -> None:
    data = _deck_dict()
    data["steps"][1]["focus"] = "circle"
    deck = Deck.from_dict(data)
    assert [s.focus for s in deck.steps] == [None, "circle", None]
    saved = json.loads(deck.dumps())
    assert saved["steps"][1] == {
        "tab": "rope", "params": {"m": 5, "n": 2, "lock": True}, "focus": "circle",
        "caption": "m − n = 3",
    }  # fmt: skip
    assert "focus" not in saved["steps"][0]
    assert Deck.loads(deck.dumps()) == deck


def test_from_values_keeps_the_focus_and_refuses_an_unknown_one() -> None:
    rope = get_model("rope").defaults()
    assert Step.from_values("rope", rope, "c", "decay").focus == "decay"
    assert Step.from_values("rope", rope, "c").focus is None
    with pytest.raises(DeckError, match="'focus' must name one of the tab's figures"):
        Step.from_values("rope", rope, "c", "ladder")


def test_a_step_is_the_defaults_with_its_params_on_top() -> None:
    step = Deck.from_dict(_deck_dict()).steps[1]
    values = step.values()
    assert values == {**get_model("rope").defaults(), "m": 5, "n": 2, "lock": True}


def test_values_are_typed_by_the_models() -> None:
    data = _deck_dict()
    data["steps"][2]["params"] = {"base": 500, "dim": 64.0}  # JSON numbers of another kind
    step = Deck.from_dict(data).steps[2]
    assert step.params == {"base": 500.0, "dim": 64}
    assert type(step.params["base"]) is float and type(step.params["dim"]) is int


def test_from_values_keeps_what_differs_from_the_defaults() -> None:
    values = {**get_model("rope").defaults(), "m": 40, "dim": 128}
    step = Step.from_values("rope", values, "  caption  ")
    assert step.params == {"m": 40, "dim": 128} and step.caption == "caption"
    assert step.values() == get_model("rope").resolve(values)


def test_from_values_refuses_what_the_tab_refuses() -> None:
    with pytest.raises(DeckError, match="pair"):
        Step.from_values("rope", {**get_model("rope").defaults(), "dim": 8, "pair": 9})


def test_with_step_inserts_and_does_not_change_the_original() -> None:
    deck = Deck.from_dict(_deck_dict())
    extra = Step("alibi", {"heads": 8}, "ALiBi")
    longer = deck.with_step(extra, 1)
    assert [s.tab for s in longer.steps] == ["sine", "alibi", "rope", "heatmap"]
    assert len(deck) == 3
    assert deck.with_step(extra).steps[-1] == extra


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(d: dict[str, Any]) -> None:
        target: Any = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


BAD: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("format", _set(("format",), "posenc-explorer-session"), "not a deck: 'format'"),
    ("newer", _set(("version",), SCHEMA_VERSION + 1), "newer version"),
    ("version type", _set(("version",), "1"), "'version' must be a positive integer"),
    ("no title", _set(("title",), " "), "'title' must be a non-empty text"),
    ("unknown field", _set(("theme",), "dark"), "the deck: unknown field 'theme'"),
    ("steps type", _set(("steps",), {"tab": "sine"}), "'steps' must be a list"),
    ("empty", _set(("steps",), []), "the deck has no steps"),
    ("step type", _set(("steps", 1), "rope"), "step 2 must be an object"),
    ("unknown tab", _set(("steps", 1, "tab"), "bert"), "step 2: 'tab' must be one of"),
    ("no tab", lambda d: d["steps"][2].pop("tab"), "step 3: 'tab' must be one of"),
    (
        "unknown parameter",
        _set(("steps", 1, "params", "mm"), 3),
        "step 2 (tab 'rope'): 'params': unknown parameter 'mm'",
    ),
    (
        "out of range",
        _set(("steps", 1, "params", "dim"), 1024),
        "step 2 (tab 'rope'): 'params': dim must be an even integer from 2 to 512, got 1024",
    ),
    (
        "wrong type",
        _set(("steps", 1, "params", "m"), "five"),
        "step 2 (tab 'rope'): 'params': m must be an integer",
    ),
    ("bool for a number", _set(("steps", 1, "params", "m"), True), "m must be an integer"),
    (
        "beyond a dynamic limit",
        _set(("steps", 2, "params", "position"), 30),
        "step 3 (tab 'heatmap'): 'params': position must be an integer from 0 to 29",
    ),
    ("params type", _set(("steps", 0, "params"), [1, 2]), "step 1: 'params' must be an object"),
    ("caption type", _set(("steps", 0, "caption"), 3), "step 1: 'caption' must be text"),
    ("caption typo", _set(("steps", 0, "captoin"), "x"), "step 1: unknown field 'captoin'"),
    (
        "unknown focus",
        _set(("steps", 1, "focus"), "wave"),
        "step 2 (tab 'rope'): 'focus' must name one of the tab's figures "
        "(circle, curves, circle_formula, curve_formula, matrix, decay, layouts), got 'wave'",
    ),
    ("focus type", _set(("steps", 0, "focus"), 3), "step 1 (tab 'sine'): 'focus' must name"),
]


@pytest.mark.parametrize(("what", "damage", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_decks_are_refused_with_a_message(
    what: str, damage: Callable[[dict[str, Any]], None], message: str
) -> None:
    data = copy.deepcopy(_deck_dict())
    damage(data)
    with pytest.raises(DeckError) as info:
        Deck.from_dict(data)
    assert message in str(info.value), what
    with pytest.raises(DeckError) as again:
        Deck.loads(json.dumps(data))
    assert str(again.value) == str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not a deck: invalid JSON"),
        ("[1, 2]", "not a deck: the file holds no JSON object"),
        ("", "not a deck: invalid JSON"),
        ("[" * 100_000, "not a deck"),
    ],
)
def test_text_that_is_not_a_deck(text: str, message: str) -> None:
    with pytest.raises(DeckError, match=message):
        Deck.loads(text)


def test_files_that_are_not_decks(tmp_path: Path) -> None:
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(DeckError, match="not UTF-8"):
        Deck.load(binary)
    big = tmp_path / "big.json"
    big.write_text(" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(DeckError, match="larger than"):
        Deck.load(big)
    with pytest.raises(FileNotFoundError):
        Deck.load(tmp_path / "missing.json")


def test_a_deck_needs_a_step() -> None:
    with pytest.raises(DeckError, match="no steps"):
        Deck(UNTITLED, ())


# -- the bundled decks --------------------------------------------------------------------------
BUNDLED = bundled_decks()


def test_one_bundled_deck_per_source_document() -> None:
    names = [p.name for p in BUNDLED]
    assert names == [
        "01-notebook.json",
        "02-explainer-intuition.json",
        "03-explainer-why-sinusoidal.json",
        "04-chapter.json",
        "05-web-page.json",
        "06-long-context.json",
        "07-precision.json",
    ]
    titles = [read_title(p) for p in BUNDLED]
    assert len(set(titles)) == len(titles)
    assert all(p.parent == BUNDLED_DIR for p in BUNDLED)


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_bundled_deck_is_valid_and_captioned(path: Path) -> None:
    deck = Deck.load(path)
    assert deck.title == read_title(path)
    assert len(deck) >= 3
    for k, step in enumerate(deck.steps, 1):
        assert step.tab in TAB_IDS
        assert step.focus in get_model(step.tab).figures, f"{path.name}: step {k} has no focus"
        assert step.values() == get_model(step.tab).resolve(dict(step.params)), k
        assert step.caption, f"{path.name}: step {k} has no caption"
        assert len(step.caption) <= MAX_BUNDLED_CAPTION, f"{path.name}: step {k} is long"
    # written by Deck.dumps: saving it again changes nothing
    assert path.read_text(encoding="utf-8") == deck.dumps()
    text = path.read_text(encoding="utf-8")
    assert "shared" not in text and "seeds" not in text


def test_bundled_decks_show_the_seed_numbers() -> None:
    """The steps reproduce the documents' figures: check the numbers their captions quote."""
    from posenc_gui import core

    notebook = Deck.load(BUNDLED_DIR / "01-notebook.json")
    dot = next(s for s in notebook.steps if "173.790" in s.caption)
    v = dot.values()
    assert (v["scheme"], v["dim"], v["position"], v["distance"]) == ("sinusoidal", 512, 32, 10)
    pe = core.sinusoidal_encoding(int(v["positions"]), 512)
    assert round(float(pe[32] @ pe[42]), 3) == 173.790
    chapter = Deck.load(BUNDLED_DIR / "04-chapter.json")
    sim = next(s for s in chapter.steps if "0.970" in s.caption)
    v = sim.values()
    assert (v["scheme"], v["positions"], v["dim"]) == ("sinusoidal", 64, 128)
    pe = core.sinusoidal_encoding(64, 128)
    unit = pe / pe.norm(dim=1, keepdim=True)
    cos = unit @ unit.T
    means = [float(cos.diagonal(k).mean()) for k in (1, 32)]
    assert [round(m, 3) for m in means] == [0.970, 0.557]


def test_bundled_captions_quote_numbers_the_app_computes() -> None:
    """The other numbers the captions quote: normalized positions, wavelengths, a RoPE score."""

    def quoted(deck: str, number: str) -> dict[str, Any]:
        step = next(s for s in Deck.load(BUNDLED_DIR / deck).steps if number in s.caption)
        values = step.values()
        return {"params": values, **get_model(step.tab).readouts(values)}

    for number, length in (("0.469", 50), ("0.232", 100)):
        v = quoted("01-notebook.json", number)
        assert v["params"]["positions"] == length
        assert f"{v['vector_at_position'][0]:.3f}" == number
    waves = quoted("05-web-page.json", "60 611")["wavelength"]
    assert (f"{waves[0]:.2f}", f"{waves[-1]:,.0f}") == ("6.28", "60,611")
    score = quoted("05-web-page.json", "2.729")
    assert score["params"]["m"] - score["params"]["n"] == 3
    assert f"{score['score']:.3f}" == "2.729" and abs(score["score_difference"]) < 1e-9


def test_long_context_captions_quote_numbers_the_app_computes() -> None:
    """Every number of the long-context deck's captions, from the tab's read-outs at its step
    (and the closed forms where there is one: 2π·4, 10000·4^(128/126), 0.1·ln 4 + 1)."""
    deck = Deck.load(BUNDLED_DIR / "06-long-context.json")

    def at(k: int) -> dict[str, Any]:
        step = deck.steps[k]
        values = step.values()
        return {"params": values, "focus": step.focus, "caption": step.caption,
                **get_model(step.tab).readouts(values)}  # fmt: skip

    pi = at(0)
    assert pi["params"]["scheme"] == "linear" and pi["focus"] == "wavelengths"
    assert pi["params"]["seq_len"] == 4 * pi["params"]["original_length"] == 16384
    assert f"{pi['wavelength_original'][0]:.2f} → {pi['wavelength'][0]:.2f}" == "6.28 → 25.13"
    assert f"{pi['wavelength'][0]:.2f}" == f"{2 * math.pi * 4:.2f}"
    assert "6.28 → 25.13" in pi["caption"]
    assert at(1)["pairs_unseen"] == 0 and at(1)["focus"] == "coverage"
    plain = at(2)
    assert plain["params"]["scheme"] == "default" and "the 18 pairs" in plain["caption"]
    assert plain["pairs_unseen"] == 18
    ntk = at(3)
    base = ntk["bounds"]["base"]
    assert base == pytest.approx(10000 * 4 ** (128 / 126), rel=1e-12)
    assert f"{base:,.0f}" == "40,890" and "10 000 → 40 890" in ntk["caption"]
    assert ntk["scale"][0] == 1.0 and ntk["scale"][-1] == pytest.approx(4.0, rel=1e-12)
    assert at(4)["pairs_unseen"] == 17 and "17 pairs" in at(4)["caption"]
    llama = at(5)
    assert llama["bands"] == {"kept": 29, "smoothed": 6, "divided": 29}
    assert llama["bounds"] == {"high_freq_wavelen": 2048.0, "low_freq_wavelen": 8192.0}
    long_run = at(6)
    assert long_run["params"]["seq_len"] == 16 * long_run["params"]["original_length"] == 131072
    assert long_run["pairs_unseen"] == long_run["bands"]["divided"] == 29
    yarn = at(7)
    assert yarn["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)
    quoted = (f"{yarn['attention_factor']:.3f}", f"{yarn['effective_tokens_without']:,.0f}",
              f"{yarn['effective_tokens_with']:,.0f}")  # fmt: skip
    assert quoted == ("1.139", "49,851", "12,385")
    assert yarn["focus"] == "temperature" and "49 851 → 12 385" in yarn["caption"]
    phi = at(8)
    assert phi["params"]["scheme"] == "longrope" and phi["params"]["seq_len"] > 4096
    assert (f"{phi['scale'][0]:.2f}", f"{phi['scale'][-1]:.2f}") == ("1.08", "64.84")
    assert f"{phi['attention_factor']:.3f}" == "1.190"
    assert phi["attention_factor"] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


def test_the_precision_deck_quotes_the_numbers_the_app_computes() -> None:
    """Deck 07's captions: the exact-integer limits, the angle errors at 10⁶, HF's recipe
    against the bfloat16 angle, and the score spreads, each read from the tab's read-outs."""
    from posenc_gui.state.precision import pair_errors

    deck = Deck.load(BUNDLED_DIR / "07-precision.json")
    assert len(deck) <= 4 and all(s.tab == "precision" for s in deck.steps)

    def step(number: str) -> tuple[dict[str, Any], dict[str, Any]]:
        s = next(s for s in deck.steps if number in s.caption)
        v = s.values()
        return v, get_model("precision").readouts(v)

    v, r = step("257")
    assert v["position"] == 257 and r["position_in"]["bfloat16"] == 256.0
    assert (
        r["exact_integer_limit"]["bfloat16"] == 256 and r["exact_integer_limit"]["float16"] == 2048
    )
    v, r = step("3.03 rad")
    assert v["position"] == 1_000_000 and v["quantity"] == "angle"
    e = pair_errors(1_000_000, int(v["dim"]), float(v["base"]), str(v["table_dtype"]))
    worst = {t: max(abs(x) for x in e[t]["angle"]) for t in ("float32", "bfloat16")}
    assert (f"{worst['bfloat16']:.2f}", f"{worst['float32']:.3g}") == ("3.03", "0.0516")
    v, r = step("0.0515")
    assert v["position"] == 1_000_000 and v["table_dtype"] == "bfloat16"
    assert f"{r['cast_after_float32']['bfloat16']:.3g}" == "0.0515"
    assert f"{r['angle_in_low']['bfloat16']:.3g}" == "1.98"
    v, r = step("20.4")
    assert (v["distance"], v["shift_range"]) == (8, 1_000_000)
    spread = r["score_spread"]
    assert (f"{spread['float32']:.3g}", f"{spread['bfloat16']:.3g}") == ("0.192", "20.4")
    assert spread["float64"] < 1e-8
