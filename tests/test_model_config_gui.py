"""File ▸ Open model config…: the same reader as ``--config``; a bad file changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from posenc_gui.controllers.presentation import FOLLOW_SYSTEM_KEY
from posenc_gui.main_window import MainWindow
from posenc_gui.state.model_config import PRESETS_DIR, ConfigError, read_config
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.state.session import Session
from posenc_gui.widgets import style as style_mod


@pytest.fixture(autouse=True)
def clean_settings() -> Iterator[None]:
    QSettings().remove(FOLLOW_SYSTEM_KEY)
    yield
    style_mod.hub().set_style(style_mod.Style())
    QSettings().remove(FOLLOW_SYSTEM_KEY)


def _window(qtbot: QtBot) -> MainWindow:
    w = MainWindow(session=Session("sine"))
    qtbot.addWidget(w)
    w.load_panels()
    return w


def _config(tmp_path: Path, preset: str, **change: object) -> Path:
    data = json.loads((PRESETS_DIR / f"{preset}.json").read_text(encoding="utf-8"))["config"]
    data.update(change)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_file_menu_has_the_action(qtbot: QtBot) -> None:
    w = _window(qtbot)
    names = [a.objectName() for a in w.file_menu.actions()]
    assert "open_model_config_action" in names


def test_a_config_sets_the_context_tab_and_shows_it(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot)
    path = _config(tmp_path, "qwen2.5-7b-yarn")
    assert w.model_configs.open(path)
    state = w.session.state("context")
    assert state.get("preset") == "custom" and state.get("scheme") == "yarn"
    assert state.get("factor") == 4.0 and state.get("original_length") == 32768
    assert state.get("base") == 1_000_000.0 and state.get("dim") == 128
    assert w.tabs.currentIndex() == TAB_IDS.index("context")


def test_a_longrope_config_with_the_bundled_lists_opens(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot)
    assert w.model_configs.open(_config(tmp_path, "phi-3.5-mini"))
    state = w.session.state("context")
    assert state.get("scheme") == "longrope" and state.get("dim") == 96
    assert state.get("factor") == 32.0 and state.get("factor_lists") == "phi-3.5-mini"


@pytest.mark.parametrize(
    ("change", "field"),
    [({"rope_theta": "big"}, "rope_theta"), ({"rope_scaling": {"type": "yarn"}}, "factor")],
)
def test_a_malformed_config_shows_its_message_and_changes_nothing(
    qtbot: QtBot, tmp_path: Path, change: dict[str, object], field: str
) -> None:
    w = _window(qtbot)
    before = w.session.state("context").values()
    path = _config(tmp_path, "llama-3.1-8b", **change)
    with pytest.raises(ConfigError) as info:
        read_config(path)
    message = str(info.value)
    assert field in message
    assert not w.model_configs.open(path)
    assert w.session.state("context").values() == before
    assert w.tabs.currentIndex() == TAB_IDS.index("sine")
    box = w.error_box
    assert box is not None
    assert message in box.text() and "Nothing was changed" in box.informativeText()
    box.close()
