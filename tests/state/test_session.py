"""The session: JSON round trip through the models' validation; bad files change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from posenc_gui.state.registry import TAB_IDS
from posenc_gui.state.session import COLORMAP_SETS, KIND, SCHEMA_VERSION, Session, SessionError


def _session() -> Session:
    s = Session("rope")
    s.state("sine").update({"amplitude": 0.25, "dim": 16})
    s.state("rope").update({"m": 105, "n": 102})
    s.view_states["heatmap"] = {"x_range": [0.0, 10.5], "mode": "zoomed"}
    s.theme, s.scale, s.colormaps = "dark", 1.5, "blue-red"
    return s


def test_round_trip_keeps_everything() -> None:
    s = _session()
    back = Session.from_json(s.to_json())
    assert back.current_tab == "rope"
    assert (back.theme, back.scale, back.colormaps) == ("dark", 1.5, "blue-red")
    for tab in TAB_IDS:
        assert back.state(tab).values() == s.state(tab).values()
    assert back.view_states["heatmap"] == {"x_range": [0.0, 10.5], "mode": "zoomed"}
    data = json.loads(s.to_json())
    assert data["kind"] == KIND and data["version"] == SCHEMA_VERSION
    assert set(data["tabs"]) == set(TAB_IDS)


def test_values_of_a_loaded_session_obey_the_model() -> None:
    # a missing parameter takes its default; a dependent one is clamped into its range
    data = _session().to_dict()
    data["tabs"]["sine"]["params"] = {"length": 10}
    back = Session.from_dict(data)
    assert back.state("sine").get("length") == 10
    assert back.state("sine").as_int("position") <= 9


def test_save_and_load_a_file(tmp_path: Path) -> None:
    path = tmp_path / "lecture.json"
    _session().save(path)
    assert Session.load(path).state("sine").get("amplitude") == 0.25
    assert [p.name for p in tmp_path.iterdir()] == ["lecture.json"]  # no temp file left


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda d: d.update(kind="something else"), "not a session"),
        (lambda d: d.update(version=SCHEMA_VERSION + 1), "newer version"),
        (lambda d: d.update(version="1"), "'version' must be"),
        (lambda d: d.update(current_tab="nope"), "'current_tab' must be"),
        (lambda d: d.update(theme="purple"), "'theme' must be"),
        (lambda d: d.update(scale=float("nan")), "'scale' must be"),
        (lambda d: d.update(scale=40), "'scale' must be"),
        (lambda d: d.update(colormaps="jet"), "'colormaps' must be one of colorblind"),
        (lambda d: d.update(colormaps=["x"]), "'colormaps' must be"),
        (lambda d: d["tabs"].update(nope={}), "unknown tab"),
        (lambda d: d["tabs"]["sine"]["params"].update(dim=2000), "dim must be"),
        (lambda d: d["tabs"]["sine"]["params"].update(dim=5), "dim must be an even integer"),
        (lambda d: d["tabs"]["sine"]["params"].update(bogus=1), "unknown parameter 'bogus'"),
        (lambda d: d["tabs"]["sine"]["params"].update(amplitude="x" * 5000), "amplitude must"),
        (lambda d: d["tabs"]["rope"].update(view={"r": {"a": 1}}), "'view' must map"),
        (lambda d: d["tabs"].update(sine=[1, 2]), "must be an object"),
    ],
)
def test_bad_sessions_are_refused_with_a_clear_message(mutate: object, words: str) -> None:
    data = _session().to_dict()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(SessionError, match=words) as info:
        Session.from_dict(data)
    assert len(str(info.value)) < 300  # one sentence, the rejected value cut short


@pytest.mark.parametrize(
    "text", ["", "{", "[1, 2]", "null", '"session"', "[" * 100_000 + "]" * 100_000],
    ids=["empty", "open", "list", "null", "string", "nested too deeply"],
)  # fmt: skip
def test_text_that_is_not_a_session(text: str) -> None:
    with pytest.raises(SessionError, match="not a session"):
        Session.from_json(text)


def test_files_that_are_not_sessions(tmp_path: Path) -> None:
    binary = tmp_path / "x.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SessionError, match="not UTF-8"):
        Session.load(binary)
    big = tmp_path / "big.json"
    big.write_text(" " * (5 * 1024 * 1024))
    with pytest.raises(SessionError, match="larger than"):
        Session.load(big)


def test_colour_map_sets_match_the_style_and_default_for_old_files() -> None:
    """The Qt-free ids are the style's sets; a version-1 file written before the field existed
    opens with the default set."""
    from posenc_gui.widgets import style

    assert tuple(style.COLORMAP_SETS) == COLORMAP_SETS
    assert COLORMAP_SETS[0] == style.DEFAULT_COLORMAPS
    data = Session("sine").to_dict()
    del data["colormaps"]
    assert Session.from_dict(data).colormaps == style.DEFAULT_COLORMAPS
    for maps in COLORMAP_SETS:  # every set's maps exist and differ from the other sets'
        st = style.Style(colormaps=maps)
        for kind in ("diverging", "cyclic", "sequential"):
            assert st.colormap(kind).getLookupTable(nPts=8).shape == (8, 3)
    luts = {m: style.Style(colormaps=m).colormap("diverging").getLookupTable(nPts=16).tobytes()
            for m in COLORMAP_SETS}  # fmt: skip
    assert len(set(luts.values())) == len(COLORMAP_SETS)


# -- view ranges (issue 20, finding 3): finite, positive width, within the table's extent --------
HEAT_X = "the table's positions -0.5 … 99.5, widened by its length either side"
HEAT_Y = "the table's shown dimensions -0.5 … 127.5, widened by its length either side"
ROPE_X = "the distances -256 … 256, widened by its length either side"


@pytest.mark.parametrize(
    ("tab", "view", "message"),
    [
        ("heatmap", {"x_range": [-1.7e308, 1.7e308]},
         f"tab 'heatmap': 'view' x_range must be [from, to] with from < to within -100.5 … "
         f"199.5 ({HEAT_X}), got [-1.7e+308, 1.7e+308]"),
        ("heatmap", {"x_range": [0.0, 10.0], "y_range": [5.0, 5.0]},
         f"tab 'heatmap': 'view' y_range must be [from, to] with from < to within -128.5 … "
         f"255.5 ({HEAT_Y}), got [5.0, 5.0]"),
        ("heatmap", {"y_range": [1.0]},
         f"tab 'heatmap': 'view' y_range must be [from, to] with from < to within -128.5 … "
         f"255.5 ({HEAT_Y}), got [1.0]"),
        ("heatmap", {"x_range": "wide"},
         f"tab 'heatmap': 'view' x_range must be [from, to] with from < to within -100.5 … "
         f"199.5 ({HEAT_X}), got 'wide'"),
        ("rope", {"x_range": [-1e300, 1e300]},
         f"tab 'rope': 'view' x_range must be [from, to] with from < to within -768 … 768 "
         f"({ROPE_X}), got [-1e+300, 1e+300]"),
    ],
)  # fmt: skip
def test_view_ranges_outside_the_table_refuse_the_session(
    tab: str, view: dict[str, object], message: str
) -> None:
    data = _session().to_dict()
    data["tabs"][tab]["view"] = view
    with pytest.raises(SessionError) as info:
        Session.from_dict(data)
    assert str(info.value) == message


def test_view_ranges_within_the_table_are_kept() -> None:
    data = _session().to_dict()
    heat = {"x_range": [-0.5, 99.5], "y_range": [3.25, 40.0]}
    data["tabs"]["heatmap"]["view"] = heat
    data["tabs"]["rope"]["view"] = {"x_range": [-300.0, 20.0]}
    back = Session.from_dict(data)
    assert back.view_states["heatmap"] == heat
    assert back.view_states["rope"] == {"x_range": [-300.0, 20.0]}
    # the extent is the session's own parameters': 1000 positions allow a range to 1500
    data["tabs"]["heatmap"]["params"]["positions"] = 1000
    data["tabs"]["heatmap"]["view"] = {"x_range": [900.0, 1500.0]}
    assert Session.from_dict(data).view_states["heatmap"] == {"x_range": [900.0, 1500.0]}
