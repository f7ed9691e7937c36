"""View ▸ Show the code and Help ▸ About this view: two windows that follow the current tab.

:class:`CodeWindow` shows the current tab's snippet (:mod:`posenc_gui.state.snippets`) in its two
versions — ``posenc_gui.core`` and plain PyTorch — as read-only monospace text with Copy and
Save… buttons. It follows the tab's :class:`ParamState`: a change marks the text stale and, only
while the window is visible, rebuilds it after :data:`DEBOUNCE_MS` of quiet (a dragged slider
never waits for it). :class:`AboutView` shows the current tab's "About this view" text
(:mod:`posenc_gui.state.about`): what it shows, the formulas and the papers with their links.

Both take their sizes from the application's :class:`~posenc_gui.widgets.style.Style` (scale,
presentation) and their colours from the application palette (light or dark).
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.state.about import about
from posenc_gui.state.model import ParamState
from posenc_gui.state.params import Value
from posenc_gui.state.registry import get_model
from posenc_gui.state.session import Session
from posenc_gui.state.snippets import snippet
from posenc_gui.widgets import style as style_mod

#: A parameter change rebuilds the visible snippet after this much quiet (ms).
DEBOUNCE_MS = 150
#: The bundled monospace family (registered by the application).
MONO_FAMILY = "DejaVu Sans Mono"
#: First size of the windows, in pixels at scale 1.
CODE_SIZE = (820, 640)
ABOUT_SIZE = (720, 620)
VERSIONS = (("core", "PyTorch + posenc_gui.core"), ("plain", "Plain PyTorch"))


def mono_font(st: style_mod.Style) -> QFont:
    """The code font: bundled DejaVu Sans Mono (the system's fixed font otherwise), scaled."""
    font = QFont(MONO_FAMILY)
    if MONO_FAMILY not in QFontDatabase.families():
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(st.pt("body") + st.scale)
    return font


def _scaled(size: tuple[int, int], st: style_mod.Style) -> tuple[int, int]:
    return round(size[0] * min(st.scale, 1.6)), round(size[1] * min(st.scale, 1.6))


class CodeWindow(QDialog):
    """The snippet of the current tab, in two versions, kept in step with its parameters."""

    def __init__(
        self,
        session: Session,
        tab_id: str,
        parent: QWidget | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("code_window")
        self.setWindowTitle("Show the code")
        self.setModal(False)
        self.session = session
        self.tab_id = ""
        self._state: ParamState | None = None
        self._stale = True
        #: How many times the text was rebuilt (tests, and the debounce's honesty).
        self.refresh_count = 0
        self._texts = {"core": "", "plain": ""}

        self.intro = QLabel(self)
        self.intro.setObjectName("code_intro")
        self.intro.setWordWrap(True)
        self.intro.setTextFormat(Qt.TextFormat.RichText)
        self.versions = QTabWidget(self)
        self.versions.setObjectName("code_versions")
        self.versions.setAccessibleName("Snippet version")
        self.editors: dict[str, QPlainTextEdit] = {}
        for key, title in VERSIONS:
            edit = QPlainTextEdit(self.versions)
            edit.setObjectName(f"code_{key}")
            edit.setReadOnly(True)
            edit.setTabChangesFocus(True)
            edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            edit.setTextInteractionFlags(
                Qt.TextInteractionFlag.TextSelectableByMouse
                | Qt.TextInteractionFlag.TextSelectableByKeyboard
            )
            edit.setAccessibleName(f"Code: {title}")
            edit.setToolTip(f"{title}: select with the mouse or keyboard, or use Copy")
            self.versions.addTab(edit, title)
            self.editors[key] = edit
        self.versions.setTabToolTip(0, "Uses this project's maths library (pip install this app)")
        self.versions.setTabToolTip(1, "Needs only PyTorch: paste it anywhere")
        self.versions.currentChanged.connect(self._on_version_changed)

        self.copy_button = QPushButton("&Copy", self)
        self.copy_button.setObjectName("copy_code_button")
        self.copy_button.setToolTip("Copy the version shown to the clipboard")
        self.copy_button.clicked.connect(self.copy)
        self.save_button = QPushButton("Sa&ve…", self)
        self.save_button.setObjectName("save_code_button")
        self.save_button.setToolTip("Save the version shown as a Python file")
        self.save_button.clicked.connect(self.save_dialog)
        close = QPushButton("Close", self)
        close.setObjectName("close_code_button")
        close.setAutoDefault(False)
        close.clicked.connect(self.close)
        self.status = QLabel(self)
        self.status.setObjectName("code_status")
        self.status.setAccessibleName("Status")
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        for b in (self.copy_button, self.save_button, close):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.versions, 1)
        layout.addLayout(buttons)
        self.setTabOrder(self.versions, self.editors["core"])
        self.setTabOrder(self.editors["core"], self.editors["plain"])
        self.setTabOrder(self.editors["plain"], self.copy_button)
        self.setTabOrder(self.copy_button, self.save_button)
        self.setTabOrder(self.save_button, close)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self.refresh)
        hub = style_mod.hub()
        hub.changed.connect(self._apply_style)
        self._apply_style(hub.style)
        self.resize(*_scaled(CODE_SIZE, hub.style))
        self.destroyed.connect(self._disconnect)
        self.set_tab(tab_id)

    # -- following the tab ------------------------------------------------------------------------
    def set_tab(self, tab_id: str) -> None:
        """Show the snippet of ``tab_id`` (and follow its parameters from now on)."""
        if tab_id == self.tab_id:
            return
        self._disconnect()
        self.tab_id = tab_id
        self._state = self.session.state(tab_id)
        self._state.changed.connect(self._on_changed)
        self._stale = True
        if self.isVisible():
            self.refresh()

    def _disconnect(self, *_: object) -> None:
        if self._state is not None:
            self._state.changed.disconnect(self._on_changed)
            self._state = None

    def _on_changed(self, name: str, value: Value) -> None:
        self._stale = True
        if self.isVisible():
            self._timer.start()  # restarted by every change: rebuilt once things are quiet

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def is_stale(self) -> bool:
        """Whether the text waits for a rebuild (hidden, or within the debounce delay)."""
        return self._stale

    def refresh(self) -> None:
        """Rebuild both versions from the tab's current values (keeps each scroll position)."""
        self._timer.stop()
        if self._state is None:
            return
        model = get_model(self.tab_id)
        try:
            snip = snippet(self.tab_id, self._state.values())
            texts = {"core": snip.core, "plain": snip.plain}
            ok = True
        except LookupError:
            texts = dict.fromkeys(("core", "plain"), f"# The {model.title} tab has no snippet yet.")
            ok = False
        for key, edit in self.editors.items():
            if texts[key] != self._texts[key]:
                bar = edit.verticalScrollBar()
                top = bar.value()
                edit.setPlainText(texts[key])
                bar.setValue(min(top, bar.maximum()))
        self._texts = texts
        self.copy_button.setEnabled(ok)
        self.save_button.setEnabled(ok)
        self.intro.setText(
            f"What the <b>{html.escape(model.title)}</b> tab shows, recomputed with its current "
            "parameters. Save it and run <code>python snippet.py</code>; it follows the tab as "
            "you change it."
        )
        self.setWindowTitle(f"Show the code: {model.title}")
        self._stale = False
        self.refresh_count += 1
        self._sync_status()

    # -- what is shown, copy, save ----------------------------------------------------------------
    def version(self) -> str:
        """``"core"`` or ``"plain"``: the version on screen."""
        return VERSIONS[self.versions.currentIndex()][0]

    def set_version(self, version: str) -> None:
        """Show the ``"core"`` or ``"plain"`` version."""
        self.versions.setCurrentIndex([k for k, _ in VERSIONS].index(version))

    def text(self, version: str | None = None) -> str:
        """The text of ``version`` (the one on screen when None), rebuilt first if stale."""
        if self._stale:
            self.refresh()
        return self._texts[version or self.version()]

    def copy(self) -> None:
        """Copy the version on screen to the clipboard."""
        QGuiApplication.clipboard().setText(self.text())
        self.status.setText("Copied to the clipboard")

    def default_name(self) -> str:
        """The file name a save proposes: ``rope_plain.py``…"""
        return f"{self.tab_id}_{self.version()}.py"

    def save_to(self, path: str | Path) -> Path:
        """Write the version on screen to ``path`` (UTF-8); :class:`OSError` when it cannot."""
        target = Path(path)
        target.write_text(self.text(), encoding="utf-8")
        self.status.setText(f"Saved {target.name}")
        return target

    def save_dialog(self) -> None:
        """Save…: ask for a file, then write the version on screen (a failure is shown)."""
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the code", self.default_name(), "Python files (*.py);;All files (*)"
        )
        if not path:
            return
        try:
            self.save_to(path)
        except OSError as err:
            self.status.setText(f"Not saved: {err.strerror or err}")

    def _on_version_changed(self, _index: int) -> None:
        self._sync_status()

    def _sync_status(self) -> None:
        self.status.setText("")

    def _apply_style(self, st: style_mod.Style) -> None:
        font = mono_font(st)
        for edit in self.editors.values():
            edit.setFont(font)


def about_html(tab_id: str, st: style_mod.Style | None = None) -> str:
    """The "About this view" text of ``tab_id`` as HTML (formulas larger, papers linked)."""
    st = st or style_mod.current()
    a = about(tab_id)
    title = html.escape(get_model(tab_id).title)
    big = f"{st.pt('text') + st.scale:.1f}pt"
    formulas = "".join(
        f"<p style='margin-left: 1.2em; font-size: {big}'>{html.escape(f)}</p>" for f in a.formulas
    )
    papers = "".join(
        f"<li>{html.escape(p.authors)} ({p.year}). <i>{html.escape(p.title)}</i>. "
        f"{html.escape(p.venue)}. <a href='{p.url}'>arXiv:{p.arxiv}</a></li>"
        for p in a.papers
    )
    notes = f"<p>{html.escape(a.notes)}</p>" if a.notes else ""
    return (
        f"<h2>{title}</h2><h3>What it shows</h3><p>{html.escape(a.shows)}</p>"
        f"<h3>Formulas</h3>{formulas}{notes}<h3>Papers</h3><ul>{papers}</ul>"
    )


class AboutView(QDialog):
    """Help ▸ About this view: what the current tab shows, its formulas and papers."""

    def __init__(self, tab_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("about_view")
        self.setModal(False)
        self.tab_id = ""
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("about_text")
        self.browser.setOpenExternalLinks(True)
        self.browser.setAccessibleName("About this view")
        close = QPushButton("Close", self)
        close.setObjectName("close_about_button")
        close.clicked.connect(self.close)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addLayout(row)
        hub = style_mod.hub()
        hub.changed.connect(self._apply_style)
        self.resize(*_scaled(ABOUT_SIZE, hub.style))
        self.set_tab(tab_id)

    def set_tab(self, tab_id: str) -> None:
        """Show the text of ``tab_id``."""
        self.tab_id = tab_id
        self.setWindowTitle(f"About this view: {get_model(tab_id).title}")
        self._apply_style(style_mod.current())

    def text(self) -> str:
        """The text shown, as plain text."""
        return self.browser.toPlainText()

    def _apply_style(self, st: style_mod.Style) -> None:
        font = QFont(self.browser.font())
        font.setPointSizeF(st.pt("text"))
        self.browser.document().setDefaultFont(font)
        try:
            body = about_html(self.tab_id, st)
        except LookupError:
            body = f"<p>The {html.escape(get_model(self.tab_id).title)} tab has no text yet.</p>"
        self.browser.setHtml(body)
