"""The layering holds: core and state import no Qt; every tab has a model and a panel."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from posenc_gui.state.registry import TAB_IDS, all_models


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return set(out.stdout.split())


def test_core_and_state_load_no_qt() -> None:
    mods = _modules_after(
        "import posenc_gui.core, posenc_gui.state\n"
        "from posenc_gui.state.registry import all_models\n"
        "for m in all_models().values(): m.readouts(m.defaults())"
    )
    assert "posenc_gui.core" in mods and "torch" in mods
    assert not {m for m in mods if m.startswith(("PySide6", "pyqtgraph", "shiboken6"))}


def test_parameter_validation_imports_no_torch() -> None:
    """`posenc-gui --tab X --set ...` validates before the window paints: no torch yet."""
    mods = _modules_after(
        "from posenc_gui.state.registry import all_models\n"
        "[m.resolve({}) for m in all_models().values()]\n"
        "import posenc_gui.cli"
    )
    assert "torch" not in mods
    assert "PySide6.QtWidgets" not in mods


def test_package_import_is_light() -> None:
    mods = _modules_after("import posenc_gui")
    assert "torch" not in mods and "PySide6" not in mods


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_tab_has_model_and_panel(tab_id: str, qapp: object) -> None:
    from posenc_gui.panels import get_panel

    model = all_models()[tab_id]
    panel_cls = get_panel(tab_id)
    assert model.id == tab_id and panel_cls.model is model
    assert model.title and model.summary
    for p in model.params:
        assert p.description and p.label


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_parameter_has_a_labelled_keyboard_control(tab_id: str, qtbot: object) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    from posenc_gui.panels import get_panel

    panel = get_panel(tab_id)()
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    for p in panel.model.params:
        suffixes = {"float": ("slider", "spin"), "int": ("slider", "spin"), "choice": ("combo",),
                    "bool": ("check",)}[p.kind]  # fmt: skip
        for suffix in suffixes:
            w = panel.findChild(QWidget, f"{p.name}_{suffix}")
            assert w is not None, f"{tab_id}: no control {p.name}_{suffix}"
            assert w.accessibleName(), f"{tab_id}: {p.name}_{suffix} has no accessible name"
            assert w.toolTip(), f"{tab_id}: {p.name}_{suffix} has no tooltip"
            assert w.focusPolicy() & Qt.FocusPolicy.TabFocus, f"{p.name}_{suffix} not tabbable"


def test_window_module_imports_no_torch() -> None:
    """The window paints before torch (~2 s here) and pyqtgraph (~0.6 s) are imported."""
    mods = _modules_after(
        "import os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from posenc_gui.app import create_application\n"
        "from posenc_gui.main_window import MainWindow\n"
        "app = create_application(); w = MainWindow(); w.show(); app.processEvents()"
    )
    assert "PySide6.QtWidgets" in mods
    assert "torch" not in mods
    assert "pyqtgraph" not in mods


# -- the house: layering and one style ------------------------------------------------------------
PACKAGE = Path(__file__).resolve().parents[1] / "posenc_gui"
#: Dependency direction, one way only: a module imports only its own layer or lower ones.
RANKS = {"core": 0, "state": 1, "widgets": 2, "panels": 3, "main_window": 4, "app": 5, "cli": 6}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "posenc_gui":
        return None
    return parts[1] if parts[1] in RANKS else None


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def test_layers_import_one_way_only() -> None:
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        own = _layer(".".join(rel.parts))
        if own is None:
            continue
        for imported in _imports(path):
            other = _layer(imported)
            if other is not None and RANKS[other] > RANKS[own]:
                wrong.append(f"{'/'.join(rel.parts)} imports {imported}")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_tabs_do_not_import_each_other() -> None:
    """What two tabs share lives below them (panels/base, widgets), never in another tab."""
    tabs = {f"posenc_gui.panels.{t}" for t in TAB_IDS}
    wrong = []
    for tab in sorted(tabs):
        path = PACKAGE / "panels" / f"{tab.rsplit('.', 1)[1]}.py"
        wrong += [f"{tab} imports {m}" for m in _imports(path) if m in tabs or any(
            m.startswith(f"{t}.") for t in tabs)]  # fmt: skip
    assert not wrong, "\n".join(wrong)


#: What a panel must not write: colours and sizes come from the Style, by role and kind.
LITERALS = {
    "hex colour": re.compile(r"['\"]#[0-9a-fA-F]{3,8}['\"]"),
    "QColor": re.compile(r"\bQColor\("),
    "mkPen/mkBrush": re.compile(r"\bmk(Pen|Brush)\("),
    "point size": re.compile(r"\d+(\.\d+)?pt\b|setPointSize"),
    "pixel width or size argument": re.compile(r"\b(width|size)=\d"),
}


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_panels_hold_no_colour_or_size_literals(tab_id: str) -> None:
    from posenc_gui.state.registry import entry

    module = entry(tab_id).panel_module
    source = (PACKAGE.parent / Path(*module.split("."))).with_suffix(".py").read_text()
    found = [
        f"{what}: {m.group(0)!r}" for what, rx in LITERALS.items() for m in rx.finditer(source)
    ]
    assert not found, f"{module} writes style literals: {found}"
