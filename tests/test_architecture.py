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


# -- the house: layering, no import circle, modules a reader can hold ------------------------------
PACKAGE = Path(__file__).resolve().parents[1] / "posenc_gui"
#: Dependency direction, one way only: a module imports only its own layer or lower ones. A
#: module belongs to the longest name here that it starts with (``posenc_gui.widgets.x.y`` is
#: in ``widgets``); the package itself (version and names) is below everything.
LAYERS = {
    "posenc_gui": 0,
    "posenc_gui.core": 1,
    "posenc_gui.state": 2,
    "posenc_gui.qt": 3,  # Qt set-up, no module of its own: usable from widgets up
    "posenc_gui.widgets": 3,
    "posenc_gui.panels": 4,
    "posenc_gui.controllers": 5,
    "posenc_gui.main_window": 6,
    "posenc_gui.app": 7,
    "posenc_gui.cli": 8,
    "posenc_gui.testing": 8,  # drives the whole window (app, main window) for tests
    "posenc_gui.__main__": 9,
}
#: No module of the package is longer than this (a reader holds one in their head).
MAX_MODULE_LINES = 900


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> str | None:
    """The layer ``module`` of the package belongs to (``None``: not of the package, or a
    module no layer claims)."""
    for name in sorted(LAYERS, key=len, reverse=True):
        if module == name or (name != "posenc_gui" and module.startswith(name + ".")):
            return name
    return None


def _imports(module: str) -> set[str]:
    """The modules of the package that ``module`` imports anywhere in its source (top level,
    inside functions, under ``TYPE_CHECKING``): ``from X import Y`` names ``X.Y`` when that
    is a module, else ``X``; relative imports resolved."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([node.module] if node.module else [])])
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in MODULES else base)
    return {m for m in found if m in MODULES and m != module}


def test_every_module_has_a_layer() -> None:
    assert set(MODULES) >= set(LAYERS), "a layer names no module"
    missing = [m for m in MODULES if _layer(m) is None]
    assert not missing, f"modules no layer claims (add them to LAYERS): {missing}"


def test_layers_import_one_way_only() -> None:
    wrong = []
    for module in MODULES:
        own = _layer(module)
        assert own is not None, module
        for imported in _imports(module):
            other = _layer(imported)
            assert other is not None, imported
            if LAYERS[other] > LAYERS[own]:
                wrong.append(f"{module} ({own}) imports {imported} ({other})")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle() -> None:
    """No two modules of the package import each other, directly or through others (every
    import counts: top level, in a function, for type checking only). A package's
    ``__init__`` re-exporting its own modules is not a circle: importing ``X.Y`` is an edge
    to ``X.Y`` only."""
    circles = _cycles({m: _imports(m) for m in MODULES})
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_no_module_is_too_long() -> None:
    lines = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()}
    long = {m: n for m, n in lines.items() if n > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_controllers_never_import_the_window() -> None:
    """The window holds its controllers; they get what they need when built, never the window."""
    wrong = [
        f"{m} imports {i}"
        for m in MODULES
        if _layer(m) == "posenc_gui.controllers"
        for i in _imports(m)
        if _layer(i) in ("posenc_gui.main_window", "posenc_gui.app", "posenc_gui.cli")
    ]
    assert not wrong, wrong


def _tab_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "panels" and parts[2] in TAB_IDS else None


def test_tabs_do_not_import_each_other() -> None:
    """What two tabs share lives below them (panels/base, widgets), never in another tab (a
    tab that is a package of views counts as one)."""
    wrong = [
        f"{m} imports {i}"
        for m in MODULES
        if _tab_of(m) is not None
        for i in _imports(m)
        if _tab_of(i) not in (None, _tab_of(m))
    ]
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
    where = PACKAGE.parent / Path(*module.split("."))
    files = sorted(where.rglob("*.py")) if where.is_dir() else [where.with_suffix(".py")]
    source = "\n".join(f.read_text() for f in files)  # a tab may be a package of views
    found = [
        f"{what}: {m.group(0)!r}" for what, rx in LITERALS.items() for m in rx.finditer(source)
    ]
    assert not found, f"{module} writes style literals: {found}"
