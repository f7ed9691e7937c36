"""How the window looks: zoom, theme, colour maps, controls, presentation mode and full screen.

- **Zoom** (Ctrl++ / Ctrl+- / Ctrl+0) changes the scale of plots, formulas and the application
  font in steps of :data:`ZOOM_STEP`; steps pass through 100 % exactly.
- **Theme**: System (follows the platform's colour scheme, light when it has none), Light, Dark;
  following the system is a setting of the machine (QSettings), the theme one of the session.
- **Presentation** (F5, ``--present``): full screen, everything at :data:`PRESENTATION_SCALE`
  on a 1024 × 768 screen, larger on a larger one (:func:`presentation_scale`), the controls
  column hidden, and one figure of the tab filling the plot area — the one enlarged, else the
  first — with the read-out its model pairs it with (:meth:`TabModel.stages`). Page Down / →
  show the next figure, Page Up / ← the previous; they stop at the last and first (a clicker
  never jumps back to the start unseen). While a deck is open those keys step the deck instead
  (a step shows its own figure), and → / ← stay with a focused slider, number or text field
  (:data:`ARROW_CONSUMERS`). Space stays Play/Pause. Ctrl+Shift+H (View ▸ Show controls) shows
  the controls column beside the figure. Esc or F5 leaves: the scale, the controls, the window
  state (full screen stays only if it was on before) and every tab's figure layout as they
  were before F5. Esc again leaves full screen.

The look lives in the application's style hub and in the session (theme, scale, colour maps);
this controller keeps both and the View menu's check marks in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from posenc_gui.controllers.common import (
    ARROW_CONSUMERS,
    AppKeyWatcher,
    Messages,
    WindowParts,
    add_action,
)
from posenc_gui.state.session import Session
from posenc_gui.widgets import style as style_mod

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel

#: Scale of presentation mode (F5) on a 1024 × 768 screen, and its floor (a larger zoom stays).
PRESENTATION_SCALE = 1.6
#: The screen :data:`PRESENTATION_SCALE` is meant for; a larger screen scales up with it.
PRESENTATION_SCREEN = (1024, 768)
#: The keys that step through the figures while presenting (without a deck), and by how much.
FIGURE_KEYS = {
    Qt.Key.Key_PageDown: +1,
    Qt.Key.Key_Right: +1,
    Qt.Key.Key_PageUp: -1,
    Qt.Key.Key_Left: -1,
}
_ARROWS = (Qt.Key.Key_Right, Qt.Key.Key_Left)
#: What entering presentation mode says: its keys (short: the status bar shares its width with
#: the animation bar, at the presentation scale, on a 1024-px screen; the long context tab's
#: "Context length L: 128 … 4194304" leaves it ~420 px).
PRESENTATION_HELP = "PgDn/PgUp · Ctrl+Shift+H · Esc"
#: The same while a deck is open: its steps have the keys (and Ctrl+G lists them).
PRESENTATION_DECK_HELP = "PgDn/PgUp steps · Ctrl+G list · Esc"
#: One zoom step (Ctrl++ / Ctrl+-) multiplies or divides the scale by this.
ZOOM_STEP = 1.15
#: QSettings key: follow the platform's colour scheme.
FOLLOW_SYSTEM_KEY = "follow_system_theme"
ThemeMode = str  # "system", "light" or "dark"
THEME_MODES = ("system", "light", "dark")


def presentation_scale(width: int, height: int) -> float:
    """The scale of presentation mode on a ``width`` × ``height`` screen: a projected image
    has the same size in the room whatever its pixels, so text keeps its share of the screen —
    :data:`PRESENTATION_SCALE` on 1024 × 768 and smaller, more on larger screens (2.25 on
    1920 × 1080), at most :data:`~posenc_gui.widgets.style.MAX_SCALE`."""
    grow = min(width / PRESENTATION_SCREEN[0], height / PRESENTATION_SCREEN[1])
    return round(min(max(1.0, grow) * PRESENTATION_SCALE, style_mod.MAX_SCALE), 2)


class DeckSteps(Protocol):
    """What presentation mode asks of the window's decks: whether a deck owns the step keys."""

    def current_step(self) -> object | None: ...


@dataclass
class _Before:
    """What presentation mode changed, to put back when it ends."""

    scale: float
    controls: bool
    full_screen: bool
    #: Per tab presented so far: its enlarged figure before (``None``: its grid).
    figures: dict[str, str | None] = field(default_factory=dict)


def system_theme() -> str:
    """The platform's colour scheme as ``"light"``/``"dark"`` (light when it is unknown)."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)  # Qt 6.5+
    if scheme is not None and scheme() == Qt.ColorScheme.Dark:
        return "dark"
    return "light"


class PresentationController(AppKeyWatcher):
    """Zoom, theme, colour maps, controls visibility, presentation mode and full screen of the
    window that is its parent."""

    def __init__(
        self,
        session: Session,
        panels: Mapping[str, Panel],
        messages: Messages,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._panels = panels
        self._messages = messages
        self._was_maximized = False
        #: While presenting: what to go back to.
        self._presentation: _Before | None = None
        self._parts: WindowParts | None = None
        self._decks: DeckSteps | None = None
        self._follow_system = bool(QSettings().value(FOLLOW_SYSTEM_KEY, False, type=bool))
        self.theme_actions: dict[str, QAction] = {}
        self.colormap_actions: dict[str, QAction] = {}
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            # (PySide drops the connection when this controller is destroyed)
            hints.colorSchemeChanged.connect(self._on_system_scheme_changed)

    def attach(self, parts: WindowParts, decks: DeckSteps | None = None) -> None:
        """The window's parts (presentation mode follows the tab on screen) and its decks (an
        open deck owns the step keys)."""
        self._parts = parts
        self._decks = decks
        parts.tabs.currentChanged.connect(self._on_tab_changed)

    def _window(self) -> QWidget:
        return cast(QWidget, self.parent())

    def start(self) -> None:
        """Apply the session's look (or the platform's theme when following it)."""
        s = self._session
        theme = system_theme() if self._follow_system else s.theme
        self.set_style(theme=theme, scale=s.scale, colormaps=s.colormaps)
        self._sync_theme_actions()

    # -- menus ----------------------------------------------------------------------------------
    def build_controls_action(self, menu: QMenu) -> QAction:
        """View ▸ Show controls (checked: the panels show their controls column)."""
        self.controls_action = add_action(
            self, menu, "Show &controls", "controls_action", ["Ctrl+Shift+H"],
            self.set_controls_visible, checkable=True,
        )  # fmt: skip
        self.controls_action.setChecked(True)
        return self.controls_action

    def build_menu(self, view_menu: QMenu) -> None:
        """Zoom, Theme ▸, Colour maps ▸, then Presentation, Full screen and Leave."""
        self.zoom_in_action = add_action(
            self, view_menu, "Zoom &in", "zoom_in_action", ["Ctrl++", "Ctrl+="], self.zoom_in,
            tip="Larger plots, text and controls",
        )  # fmt: skip
        self.zoom_out_action = add_action(
            self, view_menu, "Zoom &out", "zoom_out_action", ["Ctrl+-"], self.zoom_out,
            tip="Smaller plots, text and controls",
        )  # fmt: skip
        self.zoom_reset_action = add_action(
            self, view_menu, "Reset &zoom", "zoom_reset_action", ["Ctrl+0"], self.zoom_reset,
            tip="Everything at its normal size",
        )  # fmt: skip
        self._build_theme_menu(view_menu.addMenu("&Theme"))
        self._build_colormap_menu(view_menu.addMenu("Colour &maps"))
        view_menu.addSeparator()
        self.presentation_action = add_action(
            self, view_menu, "&Presentation", "presentation_action", ["F5"],
            self.set_presentation, checkable=True,
            tip="Full screen, one figure at a time, larger; PgDn/PgUp step (Esc leaves)",
        )  # fmt: skip
        self.full_screen_action = add_action(
            self, view_menu, "&Full screen", "full_screen_action", ["F11"],
            self.set_full_screen, checkable=True,
        )  # fmt: skip
        # No platform binding for FullScreen on a bare X server: F11 explicitly.
        platform = QKeySequence.keyBindings(QKeySequence.StandardKey.FullScreen)
        self.full_screen_action.setShortcuts(
            [QKeySequence("F11"), *(k for k in platform if k.toString() != "F11")]
        )
        self.leave_action = add_action(
            self, view_menu, "&Leave presentation and full screen", "leave_action", ["Esc"],
            self.leave_presentation,
        )  # fmt: skip
        self.leave_action.setEnabled(False)

    def _build_theme_menu(self, menu: QMenu) -> None:
        menu.setObjectName("theme_menu")
        self.theme_group = QActionGroup(self)
        self.theme_group.setExclusive(True)
        for mode, text in (("system", "&System"), ("light", "&Light"), ("dark", "&Dark")):
            a = QAction(text, self)
            a.setObjectName(f"theme_{mode}_action")
            a.setCheckable(True)
            a.setData(mode)
            self.theme_group.addAction(a)
            menu.addAction(a)
            self.theme_actions[mode] = a
        self.theme_group.triggered.connect(self._on_theme_action)
        self.theme_actions["system"].setStatusTip(
            "Follow the system's light or dark setting (light when the system has none)"
        )
        menu.addSeparator()
        self.toggle_theme_action = add_action(
            self, menu, "S&witch light/dark", "toggle_theme_action", ["Ctrl+Shift+T"],
            self.toggle_theme,
        )  # fmt: skip

    def _build_colormap_menu(self, menu: QMenu) -> None:
        menu.setObjectName("colormaps_menu")
        self.colormap_group = QActionGroup(self)
        self.colormap_group.setExclusive(True)
        for key, (label, maps) in style_mod.COLORMAP_SETS.items():
            a = QAction(label, self)
            a.setObjectName(f"colormaps_{key}_action")
            a.setCheckable(True)
            a.setData(key)
            a.setStatusTip("Heatmaps: " + ", ".join(f"{m} ({k})" for k, m in maps.items()))
            self.colormap_group.addAction(a)
            menu.addAction(a)
            self.colormap_actions[key] = a
        self.colormap_group.triggered.connect(self._on_colormap_action)
        self.colormap_actions[style_mod.hub().style.colormaps].setChecked(True)

    def _on_theme_action(self, action: QAction) -> None:
        self.set_theme_mode(str(action.data()))

    def _on_colormap_action(self, action: QAction) -> None:
        self.set_style(colormaps=str(action.data()))

    # -- style ----------------------------------------------------------------------------------
    def set_style(
        self, *, theme: str | None = None, scale: float | None = None, colormaps: str | None = None
    ) -> None:
        """Change the application's theme, scale and/or colour-map set (kept in the session)."""
        hub = style_mod.hub()
        new = hub.style.replace(
            theme=theme if theme is not None else hub.style.theme,
            scale=scale if scale is not None else hub.style.scale,
            colormaps=colormaps if colormaps is not None else hub.style.colormaps,
        )
        self._session.theme, self._session.scale = new.theme, new.scale
        self._session.colormaps = new.colormaps
        hub.set_style(new)
        if self.colormap_actions:
            self.colormap_actions[new.colormaps].setChecked(True)

    def apply_look(self, theme: str, scale: float, colormaps: str) -> None:
        """A session's look: its theme (no longer following the system), colour maps and scale;
        while presenting, ``scale`` is where leaving presentation mode goes."""
        self._follow_system = False
        QSettings().setValue(FOLLOW_SYSTEM_KEY, False)
        if self._presentation is not None:
            self._presentation.scale = scale
            self.set_style(theme=theme, colormaps=colormaps)
        else:
            self.set_style(theme=theme, scale=scale, colormaps=colormaps)
        self._sync_theme_actions()

    def saved_scale(self) -> float:
        """The scale a session keeps: the one from before presentation mode while presenting."""
        if self._presentation is not None:
            return self._presentation.scale
        return style_mod.hub().style.scale

    def zoom(self, direction: int) -> None:
        """One step larger (``+1``), smaller (``-1``), or back to normal (``0``)."""
        current = style_mod.hub().style.scale
        if direction == 0:
            new = 1.0
        else:
            new = current * ZOOM_STEP if direction > 0 else current / ZOOM_STEP
            if abs(new - 1.0) < 0.03:  # steps pass through 100 % exactly
                new = 1.0
            new = round(min(max(new, style_mod.MIN_SCALE), style_mod.MAX_SCALE), 4)
        if new == current and direction != 0:
            limit = "largest" if direction > 0 else "smallest"
            self._messages.show(f"Zoom is at its {limit} ({current:.0%})")
            return
        self.set_style(scale=new)
        self._messages.flash(f"Zoom {new:.0%}", 2000)

    def zoom_in(self) -> None:
        """View ▸ Zoom in."""
        self.zoom(+1)

    def zoom_out(self) -> None:
        """View ▸ Zoom out."""
        self.zoom(-1)

    def zoom_reset(self) -> None:
        """View ▸ Reset zoom."""
        self.zoom(0)

    # -- theme ----------------------------------------------------------------------------------
    def theme_mode(self) -> ThemeMode:
        """``"system"``, ``"light"`` or ``"dark"``: what View ▸ Theme shows."""
        return "system" if self._follow_system else self._session.theme

    def set_theme_mode(self, mode: ThemeMode) -> None:
        """Follow the system's colour scheme (``"system"``) or use ``"light"``/``"dark"``."""
        if mode not in THEME_MODES:
            raise ValueError(f"theme must be one of {', '.join(THEME_MODES)}, got {mode!r}")
        self._follow_system = mode == "system"
        QSettings().setValue(FOLLOW_SYSTEM_KEY, self._follow_system)
        self.set_style(theme=system_theme() if self._follow_system else mode)
        self._sync_theme_actions()

    def toggle_theme(self) -> None:
        """View ▸ Theme ▸ Switch light/dark."""
        self.set_theme_mode("light" if self._session.theme == "dark" else "dark")

    def _on_system_scheme_changed(self, *_: object) -> None:
        if self._follow_system:
            self.set_style(theme=system_theme())

    def _sync_theme_actions(self) -> None:
        if self.theme_actions:
            self.theme_actions[self.theme_mode()].setChecked(True)

    # -- controls, presentation, full screen ------------------------------------------------------
    def controls_visible(self) -> bool:
        """Whether the panels show their controls column (View ▸ Show controls)."""
        return self.controls_action.isChecked()

    def set_controls_visible(self, visible: bool) -> None:
        """Show or hide the controls column of every panel."""
        for panel in self._panels.values():
            panel.set_controls_visible(visible)

    def presenting(self) -> bool:
        """Whether presentation mode is on."""
        return self._presentation is not None

    def set_presentation(self, on: bool) -> None:
        """Presentation mode on (see the module's docstring) or off (everything as before)."""
        if on and self._presentation is None:
            full = self.full_screen_action.isChecked() or self._window().isFullScreen()
            self._presentation = _Before(
                style_mod.hub().style.scale, self.controls_action.isChecked(), full
            )
            self.controls_action.setChecked(False)
            screen = self._window().screen().geometry()
            wanted = presentation_scale(screen.width(), screen.height())
            self.set_style(scale=max(style_mod.hub().style.scale, wanted))
            self.full_screen_action.setChecked(True)
            self.stage_current()
            self.watch_app_keys(True)
            self.announce()
        elif not on and self._presentation is not None:
            before, self._presentation = self._presentation, None
            self.watch_app_keys(False)
            for tab, figure in before.figures.items():
                panel = self._panels.get(tab)
                if panel is not None:
                    panel.present(False)
                    panel.enlarge_figure(figure)
            self.set_style(scale=before.scale)
            self.controls_action.setChecked(before.controls)
            if not before.full_screen:
                self.full_screen_action.setChecked(False)
        if self.presentation_action.isChecked() != on:
            self.presentation_action.blockSignals(True)
            self.presentation_action.setChecked(on)
            self.presentation_action.blockSignals(False)
        self._sync_leave()

    def announce(self) -> None:
        """Say which keys presentation mode offers (in the status bar, for a while)."""
        deck_open = self._decks is not None and self._decks.current_step() is not None
        self._messages.flash(PRESENTATION_DECK_HELP if deck_open else PRESENTATION_HELP, 8000)

    def _current_panel(self) -> tuple[str, Panel] | None:
        """The tab on screen and its panel (None: not attached, or the panel not built)."""
        if self._parts is None:
            return None
        tab = self._parts.current_tab_id()
        panel = self._parts.panels.get(tab)
        return None if panel is None else (tab, panel)

    def stage_current(self) -> None:
        """While presenting: the tab on screen presents a figure (its layout from before is
        noted, the first time, to be put back)."""
        current = self._current_panel()
        if self._presentation is None or current is None:
            return
        tab, panel = current
        if tab not in self._presentation.figures:
            self._presentation.figures[tab] = panel.enlarged_figure
        panel.present(True)

    def _on_tab_changed(self, *_: object) -> None:
        self.stage_current()

    def step_figure(self, by: int) -> bool:
        """Present the figure ``by`` stages on; at either end say so and stay."""
        current = self._current_panel()
        if current is None:
            return False
        panel = current[1]
        figure = panel.figure_step(by, wrap=False)
        if figure is None:
            ids = panel.stage_figures()
            end = "last" if by > 0 else "first"
            self._messages.flash(f"This is the {end} figure of the tab ({len(ids)} figures)", 3000)
            return False
        panel.enlarge_figure(figure)
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """While presenting and no deck is open: Page Down / → the next figure, Page Up / ←
        the previous (→ / ← stay with a focused slider, number or text field)."""
        if self._presentation is None:
            return False
        key = self.plain_key(watched, event, self._window())
        by = None if key is None else FIGURE_KEYS.get(key)
        if by is None:
            return False
        if self._decks is not None and self._decks.current_step() is not None:
            return False  # an open deck steps (its keys), and its step shows its figure
        if key in _ARROWS and isinstance(QApplication.focusWidget(), ARROW_CONSUMERS):
            return False
        self.step_figure(by)
        return True

    def leave_presentation(self) -> None:
        """Esc: leave presentation mode (back to the window state of before); when not
        presenting, leave full screen."""
        if self._presentation is not None:
            self.set_presentation(False)
        elif self.full_screen_action.isChecked():
            self.full_screen_action.setChecked(False)
        self._sync_leave()

    def set_full_screen(self, on: bool) -> None:
        """View ▸ Full screen (off: back to maximised or normal, as before)."""
        w = self._window()
        if on == w.isFullScreen():
            self._sync_leave()
            return
        if on:
            self._was_maximized = w.isMaximized()
            w.showFullScreen()
        elif self._was_maximized:
            w.showMaximized()
        else:
            w.showNormal()
        self._sync_leave()

    def window_state_changed(self) -> None:
        """The window's state changed (full screen left by the window manager): keep the menu
        honest."""
        full = self._window().isFullScreen()
        if self.full_screen_action.isChecked() != full and not full:
            self.full_screen_action.blockSignals(True)
            self.full_screen_action.setChecked(False)
            self.full_screen_action.blockSignals(False)
        self._sync_leave()

    def _sync_leave(self) -> None:
        self.leave_action.setEnabled(
            self._presentation is not None or self.full_screen_action.isChecked()
        )
