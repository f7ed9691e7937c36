"""Menu helpers of the window: the tab shortcuts, View ▸ Go to tab, the table of every shortcut."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QTabWidget

from posenc_gui.state.registry import TABS


def tab_shortcut(index: int) -> QKeySequence:
    """``Ctrl+1`` … ``Ctrl+9`` for the first nine tabs, ``Alt+1`` … ``Alt+9`` for the next nine."""
    if index < 9:
        return QKeySequence(f"Ctrl+{index + 1}")
    if index < 18:
        return QKeySequence(f"Alt+{index - 8}")
    return QKeySequence()


class TabMenu(QObject):
    """View ▸ Go to tab: one entry per tab, with :func:`tab_shortcut` keys."""

    def __init__(self, menu: QMenu, tabs: QTabWidget) -> None:
        super().__init__(menu)
        self.menu = menu
        self._tabs = tabs
        for index, e in enumerate(TABS):
            action = QAction(e.title, menu)
            action.setObjectName(f"goto_{e.id}")
            action.setShortcut(tab_shortcut(index))
            action.setData(index)
            menu.addAction(action)
        menu.triggered.connect(self._go)

    def _go(self, action: QAction) -> None:
        index = action.data()
        if isinstance(index, int):
            self._tabs.setCurrentIndex(index)


def shortcut_table(bar: QMenuBar) -> list[tuple[str, str, str]]:
    """``(menu, action, shortcuts)`` of every action of ``bar``'s menus that has a shortcut."""
    rows: list[tuple[str, str, str]] = []
    # Sub-menus are found through their menu actions, not ``QAction.menu()``: with PySide6
    # that call hands the C++ menu to a Python wrapper that deletes it when collected.
    submenus = {m.menuAction(): m for m in bar.findChildren(QMenu)}

    def walk(menu: QMenu, path: str) -> None:
        for a in menu.actions():
            sub = submenus.get(a)
            if sub is not None:
                walk(sub, f"{path} ▸ {a.text().replace('&', '')}")
            elif a.shortcuts():
                keys = ", ".join(
                    k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()
                )
                rows.append((path, a.text().replace("&", "").rstrip("…"), keys))

    for top in bar.actions():
        sub = submenus.get(top)
        if sub is not None:
            walk(sub, top.text().replace("&", ""))
    return rows
