"""QApplication set-up (metadata, fonts, theme, icon), the GUI entry and off-screen rendering.

torch is not imported here: the window paints first, then the panels (and torch) load.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QFontDatabase, QIcon, QPixmap
from PySide6.QtWidgets import QApplication

import posenc_gui.qt  # noqa: F401  # first: the modules below skip PySide's source scan
from posenc_gui import APP_NAME, ORG_NAME, __version__
from posenc_gui.state import ParamError, Value
from posenc_gui.state.session import Session
from posenc_gui.widgets import crash
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.style import hub as style_hub

if TYPE_CHECKING:
    from posenc_gui.main_window import MainWindow
    from posenc_gui.state.deck import Deck

FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")
#: Reverse-DNS application id: the desktop entry's file name (without .desktop), the icon name
#: and the AppStream id (packaging/linux/).
APP_ID = "io.github.posenc.PosEncExplorer"
BASE_POINT_SIZE = 10


def resource_path(*parts: str) -> Path:
    """Path of a file shipped in ``posenc_gui/resources``."""
    return Path(str(resources.files("posenc_gui").joinpath("resources", *parts)))


def app_icon() -> QIcon:
    """The application icon: the hicolor PNGs (crisp at small sizes) and the SVG."""
    icon = QIcon()
    for png in sorted(resource_path("icons", "hicolor").glob(f"*/apps/{APP_ID}.png")):
        icon.addFile(str(png))
    icon.addFile(str(resource_path("icon.svg")))
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
    app.setDesktopFileName(APP_ID)
    app.setStyle("Fusion")
    # Offscreen and bare X servers have no platform theme: the palette comes from our Style
    # (light or dark) and follows it when it changes.
    # The application font (controls, menus) follows the scale: BASE_POINT_SIZE × scale.
    hub = style_hub()
    family = load_fonts()
    font = app.font()
    font.setFamily(family)
    app.setFont(font)
    if app.findChild(_AppStyle, _AppStyle.NAME) is None:
        _AppStyle(app)
    if app.findChild(_HeapTrim, _HeapTrim.NAME) is None:
        _HeapTrim(app)
    apply_style(app, hub.style)
    app.setWindowIcon(app_icon())
    return app


def offscreen_application() -> None:
    """The application, on the offscreen platform unless one is chosen, torch on one thread:
    for building a tab without showing a window (``render``, ``values``, the fuzz driver)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    create_application()
    import torch

    torch.set_num_threads(1)


class _HeapTrim(QObject):
    """Gives the C heap's free pages back to the system every :attr:`PERIOD_MS` (glibc's
    ``malloc_trim``; a no-op elsewhere). One per application, a child of it.

    Why: a step's large temporaries (tensors of 1–30 MB) come from glibc's main heap once its
    moving mmap threshold has grown; small long-lived objects land between them, so the freed
    holes stay resident. In a 30-minute soak of random use (``dev.py fuzz --minutes 30``) the
    memory in use stayed flat while the resident size went 660 → 814 MB from the 3rd to the
    30th minute; ``malloc_trim`` gave 50–110 MB of it back at once. A fixed 1 MiB threshold
    kept it flat too but doubled the heatmap's largest step (every temporary in fresh pages).
    A trim costs ~1 ms; at this period that is one frame in 5 s, and nothing when idle.
    """

    NAME = "posenc_heap_trim"
    #: Milliseconds between trims.
    PERIOD_MS = 5000

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.setObjectName(self.NAME)
        self._trim = _malloc_trim()
        self._timer = QTimer(self)
        self._timer.setInterval(self.PERIOD_MS)
        self._timer.timeout.connect(self.trim)
        if self._trim is not None:
            self._timer.start()

    def trim(self) -> None:
        """Return the heap's free pages now."""
        if self._trim is not None:
            self._trim(0)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (``None`` where the C library has none)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


class _AppStyle(QObject):
    """Keeps the application's palette and font in step with the style hub (one per app; a
    child of the application, so the connection goes with it)."""

    NAME = "posenc_app_style"

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.setObjectName(self.NAME)
        style_hub().changed.connect(self.apply)

    def apply(self, st: Style) -> None:
        app = self.parent()
        if isinstance(app, QApplication):
            apply_style(app, st)


def apply_style(app: QApplication, st: Style) -> None:
    """The widgets' palette (light/dark) and the application font at ``BASE_POINT_SIZE × scale``."""
    app.setPalette(st.palette())
    font = app.font()
    size = BASE_POINT_SIZE * st.scale
    if font.pointSizeF() != size:
        font.setPointSizeF(size)
        app.setFont(font)


def run_gui(
    tab: str | None = None,
    values: Mapping[str, Value] | None = None,
    *,
    session: Session | None = None,
    fresh: bool = False,
    deck: tuple[Deck, int] | None = None,
    present: bool = False,
) -> int:
    """Open the main window (see :func:`build_window`) and run the event loop.

    ``deck``: a validated lesson deck and the step (from 1) to open it at (``--deck``);
    ``present``: start in presentation mode (``--present``).
    """
    app = create_application()
    # An exception no slot caught: logged, shown with a Copy button, the window stays usable.
    crash.install()
    window = build_window(tab, values, session=session, fresh=fresh)
    if deck is not None:
        window.deck.open_deck(*deck)
    if present:
        window.set_presentation(True)
    window.show()
    app.processEvents()  # paint the window before torch is imported by the panels
    window.load_panels_later()
    return app.exec()


def build_window(
    tab: str | None = None,
    values: Mapping[str, Value] | None = None,
    *,
    session: Session | None = None,
    fresh: bool = False,
) -> MainWindow:
    """The main window, not shown yet.

    It shows ``session`` (a file given with ``--session``), else the session of the last run
    unless ``fresh``, else the defaults; ``tab`` and ``values`` (``--tab``/``--set``, only the
    values given) are applied on top. A value the restored session cannot take raises
    :class:`ParamError` before any window exists.
    """
    from posenc_gui.controllers.sessions import load_last_session
    from posenc_gui.main_window import MainWindow

    create_application()
    notice = ""
    restored = False
    if session is None and not fresh:
        session, notice = load_last_session()
        restored = session is not None
    if session is None:
        session = Session()
    if tab is not None:
        session.current_tab = tab
        try:
            session.state(tab).update(values or {})
        except ParamError as err:
            hint = " (set on top of the last session; add --fresh to start from the defaults)"
            raise ParamError(f"{err}{hint if restored else ''}") from None
    return MainWindow(session=session, notice=notice)
