"""Nothing in the project patches pyqtgraph or Qt: the app extends them by subclassing.

An instance attribute that shadows a method of its class (``axis.paint = ...``), a function of
this project stored on a pyqtgraph or Qt class, or an assignment in the source to a method or a
private attribute of a library object ties the app to one library release and hides which
library behaviour still holds. Four checks: every item of every tab's scenes and every widget
of every tab (built, shown, refreshed), every library class, the source's stores into library
objects, and the source's stores into library modules (module-level functions and private
hooks of pyqtgraph, PySide6 and shiboken: none is allowed, none is needed).
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import show_panel
from pytestqt.qtbot import QtBot

from posenc_gui.state.registry import TAB_IDS

PACKAGE = Path(__file__).resolve().parents[1] / "posenc_gui"
LIBRARIES = ("pyqtgraph", "PySide6", "shiboken6")


def _stored_on_self(node: ast.AST) -> str | None:
    """The name of ``self.<name> = ...`` (an attribute stored on ``self``), else None."""
    stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
    on_self = stored and isinstance(node.value, ast.Name) and node.value.id == "self"  # type: ignore[attr-defined]
    return node.attr if on_self else None  # type: ignore[attr-defined]


@cache
def _library_self_attributes() -> frozenset[str]:
    """Names pyqtgraph's own code assigns on ``self`` (data it keeps on its instances, some of
    them shadowing a Qt method: ``TargetItem.scale``)."""
    import pyqtgraph as pg

    names: set[str] = set()
    for path in Path(pg.__file__).parent.rglob("*.py"):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        names.update(n for n in map(_stored_on_self, ast.walk(tree)) if n)
    return frozenset(names)


def _library_classes() -> Iterator[type]:
    """Every class defined in a loaded pyqtgraph or Qt module."""
    import pyqtgraph as pg
    import pyqtgraph.exporters
    from PySide6 import QtCore, QtGui, QtWidgets

    seen: set[type] = set()
    modules = [m for n, m in list(sys.modules.items()) if n.startswith("pyqtgraph") and m]
    for module in [pg, QtCore, QtGui, QtWidgets, *modules]:
        for value in list(vars(module).values()):
            if isinstance(value, type) and value not in seen:
                seen.add(value)
                yield value


def _routine(value: Any) -> bool:
    """A method (Python or Qt's), not a signal (PySide keeps a signal's bound instance in the
    object's ``__dict__``)."""
    from PySide6.QtCore import Signal

    if isinstance(value, Signal):
        return False
    return inspect.isroutine(value) or isinstance(value, (staticmethod, classmethod))


@cache
def _library_method_names() -> frozenset[str]:
    """Names of methods of pyqtgraph and Qt classes that no library class keeps as data."""
    methods: set[str] = set()
    data: set[str] = set(_library_self_attributes())
    for cls in _library_classes():
        for name, value in vars(cls).items():
            (methods if _routine(value) else data).add(name)
    return frozenset(methods - data)


def _shadowing(obj: Any) -> list[str]:
    """Instance attributes of ``obj`` that hide a method of its class (and that the library
    does not itself keep as data)."""
    own = getattr(obj, "__dict__", None) or {}
    found = []
    for name, value in own.items():
        if not _routine(inspect.getattr_static(type(obj), name, None)):
            continue
        if name in _library_self_attributes():
            continue
        fn = getattr(value, "__func__", None)
        if getattr(fn, "__module__", "").startswith(LIBRARIES) and value.__self__ is not obj:
            continue  # the library's own forwarding (PlotWidget's methods of its PlotItem)
        found.append(f"{type(obj).__module__}.{type(obj).__qualname__}.{name}")
    return found


def _built(tab_id: str, qtbot: QtBot) -> Any:
    from PySide6.QtWidgets import QApplication

    panel = show_panel(qtbot, tab_id)
    panel.refresh_now()
    panel.grab()  # painted once: items made lazily while painting exist too
    QApplication.processEvents()
    return panel


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_no_item_or_widget_of_a_tab_has_a_patched_method(qtbot: QtBot, tab_id: str) -> None:
    """Every graphics item of every plot of the tab, and every object under the tab: no
    instance attribute shadows a method of its class."""
    import pyqtgraph as pg
    from PySide6.QtCore import QObject

    panel = _built(tab_id, qtbot)
    objects: list[Any] = [panel, *panel.findChildren(QObject)]
    plots = panel.findChildren(pg.PlotWidget)
    assert plots
    for plot in plots:
        items = plot.scene().items()
        assert any(isinstance(i, pg.AxisItem) for i in items)
        objects += items
    patched = sorted({name for obj in objects for name in _shadowing(obj)})
    assert not patched, "\n".join(patched)


def test_no_library_class_holds_a_function_of_the_project(qtbot: QtBot) -> None:
    """No pyqtgraph or Qt class was given (or had replaced) an attribute by this project."""
    for tab_id in TAB_IDS:  # every panel module imported and a panel built: patches applied
        _built(tab_id, qtbot).close()
    found = []
    for cls in _library_classes():
        if not cls.__module__.startswith(LIBRARIES):
            continue
        for name, value in list(vars(cls).items()):
            fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
            if str(getattr(fn, "__module__", None) or "").startswith("posenc_gui"):
                found.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert not found, "\n".join(found)


@cache
def _project_data_attributes() -> frozenset[str]:
    """Names the project's own classes keep as data (``self.submit: ... = None``, annotated
    class fields): an assignment to one of those is to a project object."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        names.add(stmt.target.id)
            elif name := _stored_on_self(node):
                names.add(name)
    return frozenset(names)


def _assignments(tree: ast.AST) -> Iterator[ast.Attribute]:
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    base = sub.value
                    if not (isinstance(base, ast.Name) and base.id in ("self", "cls")):
                        yield sub


def test_the_source_assigns_no_library_method_or_private_attribute(qapp: object) -> None:
    """No ``<object>.<name> = ...`` (outside ``self``) where ``name`` is a method of a pyqtgraph
    or Qt class, or a private attribute pyqtgraph keeps on its instances."""
    methods = _library_method_names() - _project_data_attributes()
    private = {
        n for n in _library_self_attributes() if n.startswith("_") and not n.startswith("__")
    }
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in _assignments(ast.parse(path.read_text(encoding="utf-8"))):
            if node.attr in methods or node.attr in private:
                rel = path.relative_to(PACKAGE.parent)
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "\n".join(found)


#: Modules of the libraries whose module-level names the project must not replace.
LIBRARY_MODULES = (*LIBRARIES, "shibokensupport", "__feature__")


def _library_module_names(tree: ast.AST) -> set[str]:
    """Local names that hold a library module: bound by ``import``/``from … import`` of a
    library module, or assigned from ``sys.modules`` or ``importlib.import_module`` (a module
    looked up by name, whichever it is)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(LIBRARY_MODULES):
                    names.add(alias.asname or alias.name.partition(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(LIBRARY_MODULES):
            names.update(a.asname or a.name for a in node.names)
    looked_up = ("sys.modules", "import_module")
    for _ in range(3):  # loop variables over what the pass before found
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value:
                if any(s in ast.unparse(node.value) for s in looked_up):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            elif isinstance(node, ast.For | ast.comprehension):
                root = _root(node.iter)
                if isinstance(root, ast.Name) and root.id in names:
                    targets = [node.target]
            for target in targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                names.update(e.id for e in elements if isinstance(e, ast.Name))
    return names


def _root(node: ast.expr) -> ast.expr:
    """The innermost object of an attribute chain or lookup (``pg`` of ``pg.a.b``)."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _module_patches(tree: ast.AST) -> list[str]:
    """Stores into a library module: ``pg.x = …``, ``del module.__dir__``,
    ``setattr(feature, "_hook", f)`` on a name that holds a library module, and any store or
    ``setattr`` reached through ``sys.modules`` or ``importlib.import_module``."""
    modules = _library_module_names(tree)

    def library(target: ast.expr) -> bool:
        root = _root(target)
        looked_up = "sys.modules" in ast.unparse(target) or "import_module" in ast.unparse(target)
        return looked_up or (isinstance(root, ast.Name) and root.id in modules)

    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("setattr", "delattr") and node.args and library(node.args[0]):
                found.append(ast.unparse(node))
            continue
        for target in targets:
            if isinstance(target, ast.Attribute) and library(target.value):
                found.append(ast.unparse(target))
    return found


def test_the_source_replaces_nothing_in_a_library_module(qapp: object) -> None:
    """No module of the project stores into a pyqtgraph, PySide or shiboken module (a private
    hook, a module's ``__dir__``, a function): the start-up work PySide does on imports is
    avoided through Python's import machinery (``sys.meta_path``) and the feature table PySide
    publishes (``posenc_gui.qt``), not by replacing PySide's functions."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        found += [f"{rel}: {p}" for p in _module_patches(ast.parse(path.read_text("utf-8")))]
    assert not found, "\n".join(found)


def test_the_checks_see_a_patch(qtbot: QtBot) -> None:
    """The checks above are not vacuous: a patched axis, a project function on a pyqtgraph
    class and a patching line of source are each found."""
    import pyqtgraph as pg

    axis = pg.AxisItem("left")
    axis.paint = lambda *a: None
    assert _shadowing(axis) == ["pyqtgraph.graphicsItems.AxisItem.AxisItem.paint"]
    assert _shadowing(pg.TargetItem()) == []  # pyqtgraph's own data named like a Qt method
    tree = ast.parse("item.render = f\nitem._renderRequired = False\nitem.posenc_key = 1\n")
    names = [n.attr for n in _assignments(tree)]
    assert [n for n in names if n in _library_method_names()] == ["render"]
    assert [n for n in names if n in _library_self_attributes()] == ["_renderRequired"]
    patches = (
        "import pyqtgraph as pg\npg.mkPen = f\n",
        "from PySide6 import QtCore\nQtCore.__dir__ = list\n",
        "import sys\nfeature = sys.modules.get('shibokensupport.feature')\n"
        "setattr(feature, '_mod_uses_pyside', f)\n",
        "import importlib\nm = importlib.import_module('PySide6.QtCore')\ndel m.__dir__\n",
        "import sys\nsys.modules['pyqtgraph'].Qt = None\n",
        "import importlib\nmods = {n: importlib.import_module(n) for n in names}\n"
        "for name, module in mods.items():\n    module.__dir__ = list\n",
    )
    for source in patches:
        assert len(_module_patches(ast.parse(source))) == 1, source
    fine = "import pyqtgraph as pg\nitem = pg.PlotCurveItem()\nitem.posenc_key = 1\nx.y = pg\n"
    assert _module_patches(ast.parse(fine)) == []
