"""Lesson decks in the main window: the File menu entries, the step keys, the banner, the status.

A :class:`DeckController` belongs to one window (its parent) and works on the window's
:class:`~posenc_gui.controllers.common.WindowParts`. It owns the open
:class:`~posenc_gui.state.deck.Deck` (or none) and the current step.

- **Open** (File ▸ Open deck…, File ▸ Open bundled deck ▸, ``posenc-gui --deck FILE``): the
  whole file is validated first (:meth:`Deck.load`); a file that cannot be used is refused with
  the window's error box and nothing changes (the deck that was open stays open).
- **Show a step**: the step's tab gets the tab's defaults with the step's parameters on top, in
  one validated, atomic :meth:`ParamState.update`; then that tab is shown, a heatmap-like panel
  with a ``reset_view`` shows its figure whole, the step's ``focus`` figure is enlarged (a step
  without one restores all the tab's figures, so the previous step's enlargement does not
  linger), the caption goes to the banner above the tabs (wrapped, never cut) and the status bar
  reads "Step 3 / 9" (short enough for any window; the deck title is in its tooltip and in the
  step list). Other tabs, the theme, the scale are not touched.
- **Go to step…** (File ▸ Go to step…, ``Ctrl+G``): a list of the steps, "3. caption", with the
  deck title above it; typing a step's number selects it, Enter shows it.
- **Keys** (only while a deck is open; without one, these keys do what they always did):
  ``Page Down`` / ``Page Up`` — what presenter clickers send — always step, wherever the focus
  is (a slider or number field keeps its arrow keys). ``→`` / ``←`` step too, unless the focused
  widget uses the arrow keys itself (slider, number field, text field, list, drop-down): there
  they keep moving the value or the cursor. The tab bar and the plots do not count: with a deck
  open, arrows on them step.
- **Edit** (File ▸ Add current view as step): inserts the current tab and its parameters (those
  that differ from the defaults) and its enlarged figure (as the step's focus) after the current
  step, with an optional caption, and shows it;
  with no deck open it starts an "Untitled deck". File ▸ Save deck… writes it atomically; the
  save dialog asks before replacing a file, :meth:`DeckController.save` never replaces one
  unless told to.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.controllers.common import (
    ARROW_CONSUMERS,
    AppKeyWatcher,
    WindowParts,
    add_action,
    reason,
    start_dir,
)
from posenc_gui.state import jsonfile
from posenc_gui.state.deck import UNTITLED, Deck, DeckError, Step, bundled_decks, read_title
from posenc_gui.state.params import ParamError
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.widgets.animation import Animator

if TYPE_CHECKING:
    from posenc_gui.widgets.deck import StepListDialog

DECK_FILTER = "PosEnc Explorer decks (*.json);;All files (*)"
LAST_DECK_DIR_KEY = "last_deck_dir"
_STEP_KEYS = {Qt.Key.Key_Right: +1, Qt.Key.Key_Left: -1}


class DeckController(AppKeyWatcher):
    """The open deck of one window, its step, and everything that shows or changes them."""

    def __init__(self, parts: WindowParts, animator: Animator, status_bar: QStatusBar) -> None:
        window = parts.dialog_parent()
        super().__init__(window)
        from posenc_gui.widgets.deck import DeckBanner

        self._parts = parts
        self._messages = parts.messages
        self._animator = animator
        self.deck: Deck | None = None
        #: Index of the current step (0-based); meaningful only while a deck is open.
        self.index = 0
        #: The file the deck came from or was saved to (``None``: bundled or new).
        self.path: Path | None = None
        #: Steps were added since the deck was opened or saved.
        self.modified = False
        #: The open Go to step… list (``None``: not open).
        self.step_list: StepListDialog | None = None
        self.banner = DeckBanner(window)
        self.status_label = QLabel(window)
        self.status_label.setObjectName("deck_status")
        self.status_label.hide()
        status_bar.addPermanentWidget(self.status_label)
        parts.tabs.currentChanged.connect(self._sync_banner)
        #: The current step's figure is still to be shown (its panel was not built yet).
        self._figure_owed = False
        parts.tabs.installEventFilter(self)  # (Show: the panels were built, see _show_figure)

    def wrap(self, central: QWidget) -> QWidget:
        """``central`` with the banner above it (the window's central widget)."""
        box = QWidget(self._parts.dialog_parent())
        box.setObjectName("deck_frame")
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.banner)
        column.addWidget(central, 1)
        return box

    # -- menu -----------------------------------------------------------------------------------
    def build_menu(self, menu: QMenu) -> None:
        """The deck entries of the File menu, and the step actions (keys Page Down / Page Up)."""
        self.open_action = add_action(
            self, menu, "Open dec&k…", "open_deck_action", None, self.open_dialog,
            tip="Open a lesson deck: steps of tabs, parameters and captions",
        )  # fmt: skip
        self.bundled_menu = menu.addMenu("Open &bundled deck")
        self.bundled_menu.setObjectName("bundled_decks_menu")
        self.bundled_actions: list[QAction] = []
        for k, path in enumerate(bundled_decks()):
            title = read_title(path)
            a = QAction(f"&{k + 1} {title}", self.bundled_menu)
            a.setObjectName(f"bundled_deck_{path.stem}")
            a.setStatusTip(f"The figures of “{title}”, in order")
            a.setData(str(path))
            self.bundled_menu.addAction(a)
            self.bundled_actions.append(a)
        self.bundled_menu.triggered.connect(self._on_bundled_action)
        if not self.bundled_actions:
            self.bundled_menu.addAction("No bundled decks").setEnabled(False)
        self.save_action = add_action(
            self, menu, "Sa&ve deck…", "save_deck_action", None, self.save_dialog,
            tip="Save the open deck (its steps and captions) to a file",
        )  # fmt: skip
        self.add_action = add_action(
            self, menu, "&Add current view as step…", "add_step_action", ["Ctrl+Shift+A"],
            self.add_step_dialog,
            tip="Insert the current tab, its parameters and its enlarged figure after the current "
            "step",
        )  # fmt: skip
        self.next_action = add_action(
            self, menu, "&Next step", "next_step_action", ["PgDown"], self.step_forward,
            tip="Show the next step of the deck (also →, and a presenter's clicker)",
        )  # fmt: skip
        self.previous_action = add_action(
            self, menu, "&Previous step", "previous_step_action", ["PgUp"], self.step_back,
            tip="Show the previous step of the deck (also ←)",
        )  # fmt: skip
        self.goto_action = add_action(
            self, menu, "Go &to step…", "goto_step_action", ["Ctrl+G"], self.goto_dialog,
            tip="Choose a step of the deck from a list (type its number, Enter shows it)",
        )  # fmt: skip
        self.close_action = add_action(
            self, menu, "C&lose deck", "close_deck_action", None, self.close_dialog,
            tip="Close the deck (the tabs keep their parameters)",
        )  # fmt: skip
        self._sync()

    def _on_bundled_action(self, action: QAction) -> None:
        path = action.data()
        if isinstance(path, str) and path:
            self.open_bundled(Path(path))

    # -- opening --------------------------------------------------------------------------------
    def open_path(self, path: str | Path, step: int = 1) -> bool:
        """Open a deck file at ``step`` (1-based); refused → a message, nothing changes."""
        target = Path(path)
        try:
            deck = Deck.load(target)
            self._check_step(deck, step)
        except (DeckError, OSError) as err:
            self._messages.error(
                "Deck not opened",
                f"“{target.name}” was not opened: {reason(err)}.",
                "Nothing was changed.",
            )
            return False
        bundled = target.resolve().parent == _bundled_dir()
        return self.open_deck(deck, step, path=None if bundled else target)

    def open_deck(self, deck: Deck, step: int = 1, *, path: Path | None = None) -> bool:
        """Make ``deck`` (validated) the open deck and show step ``step`` (1-based)."""
        try:
            self._check_step(deck, step)
        except DeckError as err:
            self._messages.error("Deck not opened", f"The deck was not opened: {err}.",
                               "Nothing was changed.")  # fmt: skip
            return False
        old = (self.deck, self.index, self.path, self.modified)
        self.deck, self.path, self.modified = deck, path, False
        if not self.go_to(step - 1):
            self.deck, self.index, self.path, self.modified = old
            self._sync()
            return False
        self.watch_app_keys(True)
        self._parts.tabs.setFocus()  # arrows step from here (the tab bar does not keep them)
        # short notices: the status bar's permanent widgets leave them ~400 px on a projector
        self._messages.show(f"Opened a deck of {len(deck)} steps (Ctrl+G lists them)")
        return True

    def open_dialog(self) -> None:
        """File ▸ Open deck…"""
        if not self._discard_ok():
            return
        path, _ = QFileDialog.getOpenFileName(
            self._parts.dialog_parent(), "Open deck", self._start_dir(), DECK_FILTER
        )
        if path:
            QSettings().setValue(LAST_DECK_DIR_KEY, str(Path(path).parent))
            self.open_path(path)

    def open_bundled(self, path: Path) -> bool:
        """File ▸ Open bundled deck ▸ (asks first when the open deck has unsaved steps)."""
        return self._discard_ok() and self.open_path(path)

    def close_dialog(self) -> None:
        """File ▸ Close deck (asks first when the deck has unsaved steps)."""
        if self._discard_ok():
            self.close_deck()

    def close_deck(self) -> None:
        """File ▸ Close deck: the banner goes, the tabs keep what they show."""
        if self.deck is None:
            return
        self.deck, self.path, self.modified, self.index = None, None, False, 0
        self._figure_owed = False
        self.watch_app_keys(False)
        self._sync()
        self._messages.show("Closed the deck")

    # -- stepping -------------------------------------------------------------------------------
    def step_forward(self) -> bool:
        """File ▸ Next step (Page Down)."""
        return self.step(+1)

    def step_back(self) -> bool:
        """File ▸ Previous step (Page Up)."""
        return self.step(-1)

    def current_step(self) -> Step | None:
        """The step on screen (``None`` without a deck)."""
        return self.deck.steps[self.index] if self.deck is not None else None

    def step(self, delta: int) -> bool:
        """Go ``delta`` steps forward (or back); at either end say so and stay."""
        if self.deck is None:
            return False
        target = self.index + delta
        if not 0 <= target < len(self.deck):
            end = "last" if delta > 0 else "first"
            self._messages.show(f"This is the {end} step ({self._where()})")
            return False
        return self.go_to(target)

    def go_to(self, index: int) -> bool:
        """Show step ``index`` (0-based): tab, parameters, banner, status; atomic."""
        if self.deck is None or not 0 <= index < len(self.deck):
            return False
        step = self.deck.steps[index]
        self._animator.pause()  # a step shows its own figure, still: play again with Space
        try:
            values = step.values()
            self._parts.session.state(step.tab).update(values)
        except ParamError as err:  # the deck was validated: only a changed tab gets here
            self._messages.error("Step not shown", f"Step {index + 1} cannot be shown: {err}.",
                     "Nothing was changed.")  # fmt: skip
            return False
        self.index = index
        self._parts.tabs.setCurrentIndex(TAB_IDS.index(step.tab))
        self._figure_owed = True
        self._show_figure()
        self._sync()
        return True

    def _show_figure(self) -> None:
        """The current step's figure on its panel: the whole view (``reset_view``), the focus
        enlarged. A panel not built yet (the window still loading) gets it when the tabs come
        on screen."""
        step = self.current_step()
        panel = self._parts.panels.get(step.tab) if step is not None else None
        if step is None or panel is None or not self._figure_owed:
            return
        self._figure_owed = False
        reset_view = getattr(panel, "reset_view", None)
        if callable(reset_view):
            reset_view()
        panel.enlarge_figure(step.focus)

    def goto_dialog(self) -> None:
        """File ▸ Go to step… (Ctrl+G): the list of steps (window-modal, not blocking); Enter
        shows the selected step, Esc leaves the deck where it was."""
        from posenc_gui.widgets.deck import StepListDialog

        if self.deck is None:
            return
        if self.step_list is not None:
            self.step_list.close()
        dialog = StepListDialog(self.deck, self.index, self._parts.dialog_parent())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.step_chosen.connect(self._step_chosen)
        dialog.finished.connect(self._step_list_finished)
        dialog.destroyed.connect(self._step_list_gone)
        self.step_list = dialog
        dialog.open()

    def _step_chosen(self, index: int) -> None:
        self.go_to(index)

    def _step_list_finished(self, *_: object) -> None:
        """The keys go back to the window (Page Down steps on at once)."""
        self._parts.dialog_parent().activateWindow()
        self._parts.tabs.setFocus()

    def _step_list_gone(self, *_: object) -> None:
        self.step_list = None

    # -- editing and saving ---------------------------------------------------------------------
    def add_current_step(self, caption: str = "") -> Step:
        """Insert the current view after the current step (a new deck when none is open)."""
        tab = self._parts.current_tab_id()
        panel = self._parts.panels.get(tab)
        focus = panel.enlarged_figure if panel is not None else None
        step = Step.from_values(tab, self._parts.session.state(tab).values(), caption, focus)
        if self.deck is None:
            self.deck, self.path, self.index = Deck(UNTITLED, (step,)), None, 0
            self.watch_app_keys(True)
        else:
            self.deck = self.deck.with_step(step, self.index + 1)
            self.index += 1
        self.modified = True
        self._sync()
        self._messages.show(f"Added step {self._where()}")
        return step

    def add_step_dialog(self) -> None:
        """File ▸ Add current view as step…: asks for a caption (may stay empty)."""
        text, ok = QInputDialog.getText(
            self._parts.dialog_parent(), "Add current view as step",
            "Caption shown above the tab (may be empty):",
        )  # fmt: skip
        if ok:
            try:
                self.add_current_step(text)
            except DeckError as err:
                self._messages.error("Step not added", f"The step was not added: {err}.")

    def save(self, path: str | Path, *, overwrite: bool = False) -> bool:
        """Write the deck to ``path`` atomically (an existing file only with ``overwrite``)."""
        target = Path(path)
        if self.deck is None:
            self._messages.error("Deck not saved", "No deck is open: add a step first.")
            return False
        deck = self.deck
        if deck.title == UNTITLED and target.stem:
            deck = deck.with_title(target.stem.replace("_", " ").replace("-", " "))
        try:
            jsonfile.write_atomic(target, deck.dumps(), overwrite=overwrite)
        except (OSError, DeckError) as err:
            self._messages.error("Deck not saved", f"Could not save the deck to {target}.",
                               reason(err))  # fmt: skip
            return False
        self.deck, self.path, self.modified = deck, target, False
        self._sync()
        self._messages.show(f"Saved deck to {target}")
        return True

    def save_dialog(self) -> None:
        """File ▸ Save deck… (the dialog asks before replacing a file)."""
        if self.deck is None:
            self._messages.error("Deck not saved", "No deck is open: add a step first.")
            return
        name = self.path.name if self.path is not None else "lesson-deck.json"
        start = str(Path(self._start_dir()) / name)
        dialog = QFileDialog(self._parts.dialog_parent(), "Save deck", start, DECK_FILTER)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setDefaultSuffix("json")
        if not dialog.exec() or not dialog.selectedFiles():
            return
        path = Path(dialog.selectedFiles()[0])
        QSettings().setValue(LAST_DECK_DIR_KEY, str(path.parent))
        self.save(path, overwrite=True)  # the dialog confirmed a replacement

    def _discard_ok(self) -> bool:
        """Before the menu replaces or closes a deck with unsaved steps: ask."""
        if self.deck is None or not self.modified:
            return True
        answer = QMessageBox.question(
            self._parts.dialog_parent(), "Unsaved steps",
            f"“{self.deck.title}” has steps that are not saved. Discard them?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )  # fmt: skip
        return answer == QMessageBox.StandardButton.Discard

    # -- keys -----------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """→ / ← step while a deck is open, unless the focused widget uses the arrows; the
        tabs shown (the window finished loading): the step's figure."""
        if event.type() == QEvent.Type.Show and watched is self._parts.tabs:
            self._show_figure()
            return False
        if self.deck is None:
            return False
        key = self.plain_key(watched, event, self.parent())
        delta = None if key is None else _STEP_KEYS.get(key)
        if delta is None:
            return False
        if isinstance(QApplication.focusWidget(), ARROW_CONSUMERS):
            return False
        self.step(delta)
        return True

    def watch_keys(self, on: bool) -> None:
        """Watch the application's keys while a deck is open (off: the window is closed)."""
        self.watch_app_keys(on and self.deck is not None)

    # -- display --------------------------------------------------------------------------------
    def _where(self) -> str:
        return f"{self.index + 1} / {len(self.deck)}" if self.deck is not None else ""

    def status_text(self) -> str:
        """What the status bar shows: ``"Step 3 / 9"`` (empty without a deck). Short, so it
        is never cut and leaves room for the notices; the title is in :meth:`status_tip`."""
        if self.deck is None:
            return ""
        unsaved = " (not saved)" if self.modified else ""
        return f"Step {self._where()}{unsaved}"

    def status_tip(self) -> str:
        """The status's tooltip: the deck title in full (empty without a deck)."""
        return "" if self.deck is None else f"{self.deck.title} — step {self._where()}"

    def _sync(self) -> None:
        open_ = self.deck is not None
        self.status_label.setText(self.status_text())
        self.status_label.setToolTip(self.status_tip())
        self.status_label.setVisible(open_)
        actions = ("next_action", "previous_action", "goto_action", "close_action", "save_action")
        for name in actions:
            action = getattr(self, name, None)
            if action is not None:
                action.setEnabled(open_)
        self._sync_banner()

    def _sync_banner(self, *_: object) -> None:
        """The caption shows while its step's tab is on screen."""
        step = self.current_step()
        on_tab = step is not None and self._parts.current_tab_id() == step.tab
        self.banner.show_caption(step.caption if step is not None and on_tab else "")

    def _start_dir(self) -> str:
        saved = str(QSettings().value(LAST_DECK_DIR_KEY, "", type=str))
        return saved if saved and Path(saved).is_dir() else start_dir()

    def _check_step(self, deck: Deck, step: int) -> None:
        if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= len(deck):
            raise DeckError(f"the deck has steps 1 to {len(deck)}, not {step!r}")


def _bundled_dir() -> Path:
    paths = bundled_decks()
    return paths[0].resolve().parent if paths else Path()
