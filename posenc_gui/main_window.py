"""The main window: menus, status bar, and a tab widget built from the panel registry.

The window is shown with a "loading" page first; :meth:`MainWindow.load_panels` then imports the
panels (and with them torch, ~2 s) and builds the tabs, so something is on screen at once.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from posenc_gui import APP_NAME, __version__
from posenc_gui.app import qbytes
from posenc_gui.state import ParamState, Value

ABOUT_HTML = f"""
<h2>{APP_NAME} {__version__}</h2>
<p>Positional encodings in Transformers, made tangible: every plot is computed live by a torch
backend from the formulas of the papers below.</p>
<ul>
<li>Vaswani et al., <i>Attention Is All You Need</i>, NeurIPS 2017 (sinusoidal encoding).</li>
<li>Su et al., <i>RoFormer: Enhanced Transformer with Rotary Position Embedding</i>,
2021 (RoPE).</li>
<li>Press et al., <i>Train Short, Test Long: Attention with Linear Biases</i>,
ICLR 2022 (ALiBi).</li>
</ul>
<p>Free software under the MIT licence. Fonts: DejaVu (Bitstream Vera licence).</p>
"""


class MainWindow(QMainWindow):
    """Top-level window. ``panels`` maps tab id to panel once :meth:`load_panels` has run."""

    def __init__(
        self,
        initial_tab: str | None = None,
        initial_values: Mapping[str, Value] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("main_window")
        self.setWindowTitle(APP_NAME)
        self.initial_tab = initial_tab
        self.initial_values = dict(initial_values or {})
        self.panels: dict[str, QWidget] = {}
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setAccessibleName("Explorer tabs")
        font = self.tabs.tabBar().font()
        font.setPointSize(font.pointSize() + 1)
        self.tabs.tabBar().setFont(font)
        self.loading = QLabel("Loading the torch backend…", self)
        self.loading.setObjectName("loading_label")
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lf = self.loading.font()
        lf.setPointSize(lf.pointSize() + 6)
        self.loading.setFont(lf)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.loading)
        self.stack.addWidget(self.tabs)
        self.setCentralWidget(self.stack)
        self.statusBar().showMessage("Starting…")
        self._build_menus()
        self._restore_geometry()

    # -- menus ------------------------------------------------------------------------------
    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.export_action = QAction("&Export tab as PNG…", self)
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        self.export_action.triggered.connect(self.export_current)
        self.export_action.setEnabled(False)
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setObjectName("quit_action")
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        if quit_action.shortcut().isEmpty():
            quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        view_menu = bar.addMenu("&View")
        self.reset_action = QAction("&Reset tab parameters", self)
        self.reset_action.setShortcut(QKeySequence("Ctrl+R"))
        self.reset_action.triggered.connect(self.reset_current)
        self.reset_action.setEnabled(False)
        view_menu.addAction(self.reset_action)
        full = QAction("&Full screen", self)
        full.setCheckable(True)
        # No platform binding for FullScreen on a bare X server: F11 explicitly.
        full.setShortcuts([QKeySequence("F11"), QKeySequence(QKeySequence.StandardKey.FullScreen)])
        full.toggled.connect(self._set_full_screen)
        view_menu.addAction(full)
        self.full_screen_action = full
        self.tab_menu = view_menu.addMenu("&Go to tab")

        help_menu = bar.addMenu("&Help")
        about = QAction(f"&About {APP_NAME}", self)
        about.setObjectName("about_action")
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)

    def _set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def show_about(self) -> None:
        """Help ▸ About: version and the papers behind the maths."""
        QMessageBox.about(self, f"About {APP_NAME}", ABOUT_HTML)

    # -- panels -----------------------------------------------------------------------------
    def load_panels_later(self) -> None:
        """Build the tabs on the next event-loop turn (after the first paint)."""
        QTimer.singleShot(0, self.load_panels)

    def load_panels(self) -> None:
        """Import the panels (torch) and build one tab per registered panel."""
        if self.panels:
            return
        import torch

        # Two cores: OpenMP threads would spin against the paint thread; small tensors are
        # faster single-threaded anyway.
        torch.set_num_threads(1)
        from posenc_gui.panels import all_panels

        for index, (tab_id, cls) in enumerate(all_panels().items()):
            values = self.initial_values if tab_id == self.initial_tab else None
            panel = cls(ParamState(cls.model, values), self.tabs)
            panel.message.connect(self.show_message)
            self.panels[tab_id] = panel
            self.tabs.addTab(panel, cls.model.title)
            self.tabs.setTabToolTip(index, cls.model.summary)
            action = QAction(cls.model.title, self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            self.tab_menu.addAction(action)
        tab = self.initial_tab or str(QSettings().value("last_tab", "", type=str))
        if tab in self.panels:
            self.tabs.setCurrentWidget(self.panels[tab])
        self.stack.setCurrentWidget(self.tabs)
        self.export_action.setEnabled(True)
        self.reset_action.setEnabled(True)
        self.statusBar().showMessage("Ready", 3000)

    def current_tab_id(self) -> str:
        """Id of the tab on screen ('' before the panels are loaded)."""
        current = self.tabs.currentWidget()
        for tab_id, panel in self.panels.items():
            if panel is current:
                return tab_id
        return ""

    def show_message(self, text: str) -> None:
        """Show a notice (e.g. rejected input) in the status bar."""
        self.statusBar().showMessage(text, 8000)

    def reset_current(self) -> None:
        """Every parameter of the current tab back to its default."""
        panel = self.tabs.currentWidget()
        state = getattr(panel, "state", None)
        if isinstance(state, ParamState):
            state.reset()
            self.show_message(f"{state.model.title}: parameters reset")

    def export_current(self) -> None:
        """Save the current tab as a PNG picture."""
        tab_id = self.current_tab_id()
        if not tab_id:
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Export tab as PNG", f"{tab_id}.png", "PNG images (*.png)"
        )
        if not path:
            return
        if not path.lower().endswith(".png"):
            path += ".png"
        if self.panels[tab_id].grab().save(path, "PNG"):
            self.show_message(f"Saved {path}")
        else:
            QMessageBox.warning(self, "Export failed", f"Could not write {path}.")

    # -- geometry ---------------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        settings = QSettings()
        if not self.restoreGeometry(qbytes(settings.value("geometry", type=bytes))):
            self.resize(1500, 950)

    def closeEvent(self, event: QCloseEvent) -> None:
        settings = QSettings()
        settings.setValue("geometry", self.saveGeometry())
        if self.current_tab_id():
            settings.setValue("last_tab", self.current_tab_id())
        super().closeEvent(event)
