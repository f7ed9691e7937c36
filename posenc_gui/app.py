"""QApplication set-up (metadata, fonts, theme, icon), the GUI entry and off-screen rendering.

torch is not imported here: the window paints first, then the panels (and torch) load.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QColor, QFontDatabase, QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QApplication

from posenc_gui import APP_NAME, ORG_NAME, __version__
from posenc_gui.state import Value

FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")
BASE_POINT_SIZE = 10


def resource_path(*parts: str) -> Path:
    """Path of a file shipped in ``posenc_gui/resources``."""
    return Path(str(resources.files("posenc_gui").joinpath("resources", *parts)))


def app_icon() -> QIcon:
    """The application icon (SVG, with a rendered pixmap fallback)."""
    icon = QIcon(str(resource_path("icon.svg")))
    if icon.isNull():  # no SVG image plugin: fall back to an empty but valid icon
        icon = QIcon(QPixmap(16, 16))
    return icon


def load_fonts() -> str:
    """Register the bundled DejaVu fonts (Qt draws empty boxes when the system has none)."""
    family = ""
    for name in FONT_FILES:
        font_id = QFontDatabase.addApplicationFont(str(resource_path("fonts", name)))
        if font_id >= 0 and not family:
            families = QFontDatabase.applicationFontFamilies(font_id)
            family = families[0] if families else ""
    return family or "DejaVu Sans"


def light_palette() -> QPalette:
    """A high-contrast light palette (projectors wash out dark themes and thin greys)."""
    pal = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#f4f5f7",
        QPalette.ColorRole.WindowText: "#111111",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#eef0f3",
        QPalette.ColorRole.Text: "#111111",
        QPalette.ColorRole.Button: "#e8eaee",
        QPalette.ColorRole.ButtonText: "#111111",
        QPalette.ColorRole.Highlight: "#0072B2",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#ffffe8",
        QPalette.ColorRole.ToolTipText: "#111111",
        QPalette.ColorRole.PlaceholderText: "#666666",
        QPalette.ColorRole.Link: "#0060a0",
    }
    for role, color in colors.items():
        pal.setColor(role, QColor(color))
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#8a8a8a"))
    return pal


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication with metadata, fonts, Fusion style and palette (reused if it exists)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        app = existing
    else:
        QApplication.setHighDpiScaleFactorRoundingPolicy(
            Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
        )
        app = QApplication(argv if argv is not None else [sys.argv[0]])
    app.setOrganizationName(ORG_NAME)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("posenc-gui")
    app.setStyle("Fusion")
    app.setPalette(light_palette())
    family = load_fonts()
    font = app.font()
    font.setFamily(family)
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    app.setWindowIcon(app_icon())
    return app


def run_gui(tab: str | None = None, values: Mapping[str, Value] | None = None) -> int:
    """Open the main window (on ``tab`` with ``values``) and run the event loop."""
    from posenc_gui.main_window import MainWindow

    app = create_application()
    window = MainWindow(initial_tab=tab, initial_values=values)
    window.show()
    app.processEvents()  # paint the window before torch is imported by the panels
    window.load_panels_later()
    return app.exec()


def render_png(tab: str, values: Mapping[str, Value], out: Path, size: tuple[int, int]) -> None:
    """Render tab ``tab`` with ``values`` at ``size`` into ``out`` without showing a window."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    create_application()
    import torch

    torch.set_num_threads(1)
    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamState

    panel_cls = get_panel(tab)
    panel = panel_cls(ParamState(panel_cls.model, values))
    panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    panel.resize(*size)
    panel.show()
    QApplication.processEvents()
    panel.refresh_now()
    QApplication.processEvents()
    pixmap = panel.grab()
    panel.close()
    if not pixmap.save(str(out), "PNG"):
        raise OSError(f"could not write {out}")
    panel.deleteLater()


def qbytes(value: object) -> QByteArray:
    """A QSettings value as QByteArray (empty when missing or of another type)."""
    return value if isinstance(value, QByteArray) else QByteArray()
