"""Export a tab: its figure as PNG (chosen pixel width) or SVG, its data as CSV, ``.npz`` or a
folder of ``.npy`` files.

What is exported
    The *figure* is the panel's plot area (``panel.plot_grid``; the whole widget when a panel has
    none) — the controls column is not part of a slide. The *data* is ``panel.data()``:
    ``{view: {name: Series(values, label, unit)}}``, every array the tab shows.

PNG
    :func:`render_image` renders the widget at its current aspect ratio, ``width`` pixels wide,
    through a device pixel ratio (``width / widget.width()``): text and lines are drawn at the
    target resolution, as on a high-DPI screen, not scaled up from a screenshot.

SVG
    :func:`write_svg` paints the widget into a :class:`QSvgGenerator` (PySide6-Essentials ships
    QtSvg): one vector file with every plot, title and formula of the figure.

CSV (one file, one section per view)
    ::

        # PosEnc Explorer: tab sine (Sine explorer)
        # parameters: amplitude=1.0; frequency=1.0; ...
        #
        # view wave: t, sin, cos
        time t [s],A·sin(2πft+φ),A·cos(2πft+φ)
        0.0,0.0,1.0
        ...
        <blank line>
        # view circle: point, angle_degrees
        ...

    Each section starts with ``# view NAME: series names`` (the keys of ``panel.data()[NAME]``,
    one per column), then one header row of ``label [unit]`` (just ``label`` without a unit),
    then the rows. A number is one cell in the first row; a 1-D array is a column; a 2-D array
    ``(n, m)`` gives ``m`` columns named ``name[:,j]`` with headers ``label [unit] (column j)``.
    Shorter columns end with empty cells; booleans are written 1/0; floats with full precision
    (``repr``). Views that record nothing are left out. The file is UTF-8 with a byte-order
    mark, so spreadsheet programs show θ, ω and · correctly.

NumPy (``.npz``)
    ``np.savez`` with one array per series under ``"view/name"`` plus ``"__meta__"``: a JSON
    string ``{"tab", "title", "params", "series": {"view/name": {"label", "unit"}}}``. It loads
    without pickle: ``np.load(path)["wave/sin"]``.

Every file is made in memory first, then written by the app's one writer,
:func:`posenc_gui.state.jsonfile.write_atomic`: only to a regular file or a new path (a device, a
named pipe or a folder is refused), through a symlink to its target, an existing file keeping its
mode, atomic and verified (a full disk or a short write is an error, never a half file). An
existing file is never replaced unless ``overwrite=True`` (:class:`FileExistsError` otherwise).

Pictures (exported or copied) are capped at :data:`MAX_PICTURE_SIDE` pixels a side and
:data:`MAX_PICTURE_PIXELS` pixels in all; a larger one is refused
(:class:`PictureTooLargeError`, naming the cap) before its memory is taken.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFont, QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from posenc_gui.state.jsonfile import WriteRefusedError, file_kind, write_atomic
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.svg import portable_svg, set_pixel_size
from posenc_gui.widgets.views import Series

#: Pixel widths offered for PNG export (slides: 1280, 1920 "full HD", 2560, 3840 "4K").
PNG_WIDTHS = (1280, 1920, 2560, 3840)
DEFAULT_PNG_WIDTH = 1920
MIN_PNG_WIDTH, MAX_PNG_WIDTH = 320, 8192

#: Slide sizes offered for one figure (width, height in pixels).
SLIDE_SIZES = ((1920, 1080), (1280, 720))
MIN_SIDE, MAX_SIDE = 320, 8192
#: A figure exported at a slide size is laid out at the presentation scale (1.6) at 768 pixels
#: high, in proportion to the height (1080 pixels: 2.25), so it reads as that slide would.
SLIDE_SCALE_AT = (768, 1.6)

#: The largest picture exported or copied: no side over this many pixels …
MAX_PICTURE_SIDE = 8192
#: … and no more pixels in all (40 megapixels: 160 MB as 32-bit colour, held once more by the
#: clipboard or the PNG encoder), so a wide picture of a tall window cannot exhaust memory.
MAX_PICTURE_PIXELS = 40_000_000

Data = Mapping[str, Mapping[str, Series]]


class PictureTooLargeError(ValueError):
    """A picture over the cap (:data:`MAX_PICTURE_SIDE`, :data:`MAX_PICTURE_PIXELS`); the
    message names the size asked for and the cap."""


def check_picture_size(width: int, height: int) -> None:
    """:class:`PictureTooLargeError` when a ``width`` × ``height`` picture is over the cap."""
    if max(width, height) > MAX_PICTURE_SIDE or width * height > MAX_PICTURE_PIXELS:
        raise PictureTooLargeError(
            f"a picture of {width} × {height} pixels is over the cap of {MAX_PICTURE_SIDE} "
            f"pixels a side and {MAX_PICTURE_PIXELS // 1_000_000} megapixels "
            f"({MAX_PICTURE_PIXELS:,} pixels) in all; choose a smaller width or size"
        )


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` (or ``×``, spaces allowed) → ``(1280, 720)``; :class:`ValueError` saying
    what a size must be otherwise."""
    w, sep, h = text.strip().lower().replace("×", "x").partition("x")
    try:
        width, height = int(w), int(h)
    except ValueError:
        width = height = -1
    if not sep or not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise ValueError(
            f"a size is W×H (for example 1920×1080), each side a whole number of pixels from "
            f"{MIN_SIDE} to {MAX_SIDE}; got {text.strip()!r}"
        )
    check_picture_size(width, height)
    return width, height


def figure_widget(panel: QWidget) -> QWidget:
    """The part of ``panel`` that makes the figure: its plot area, or the panel itself."""
    grid = getattr(panel, "plot_grid", None)
    return grid if isinstance(grid, QWidget) else panel


# -- one figure at a slide size -------------------------------------------------------------------
def slide_scale(height: int, floor: float | None = None) -> float:
    """The style scale of a figure exported ``height`` pixels high (see :data:`SLIDE_SCALE_AT`),
    never below ``floor`` (default: the application's current scale) nor above the largest."""
    ref_height, ref_scale = SLIDE_SCALE_AT
    floor = style_mod.current().scale if floor is None else floor
    return round(min(max(ref_scale * height / ref_height, floor), style_mod.MAX_SCALE), 4)


def _settle(panel: Any) -> None:
    QApplication.processEvents()
    panel.refresh_now()
    QApplication.processEvents()


@contextmanager
def staged(
    panel_cls: Any,
    values: Mapping[str, Any],
    size: tuple[int, int],
    *,
    figure: str | None = None,
    view_state: Mapping[str, Any] | None = None,
    scale: float | None = None,
) -> Iterator[tuple[Any, QWidget]]:
    """An offscreen panel of ``panel_cls`` (a :class:`~posenc_gui.panels.base.Panel` class) on
    its own copy of ``values``, laid out for ``size``: yields ``(panel, widget)`` where
    ``widget`` is the figure's cell, exactly ``size`` and the only one shown (the controls
    column hidden), or, without ``figure``, the whole panel at ``size``.

    The figure is laid out at that size (its plots, axes and text placed for it), not scaled
    from the window, in the application's style at ``scale`` (default: for a figure
    :func:`slide_scale` of the height, so text reads as on a slide; for the whole tab the
    current scale); nothing on screen changes. :class:`KeyError` lists the tab's figures when
    ``figure`` is not one of them. The panel is disposed of on exit.
    """
    from posenc_gui.state import ParamState

    width, height = size
    check_picture_size(width, height)
    model = panel_cls.model
    if figure is not None and figure not in model.figures:
        raise KeyError(
            f"tab {model.id!r} has no figure {figure!r}; figures: {', '.join(model.figures)}"
        )
    if scale is None:
        scale = style_mod.current().scale if figure is None else slide_scale(height)
    look = style_mod.StyleHub(style_mod.current().replace(scale=scale, hinted_text=False))
    panel = panel_cls(ParamState(model, dict(values)), style_hub=look)
    draw_text_unhinted(panel)
    try:
        panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        if figure is not None and panel.side_scroll is not None:
            panel.side_scroll.hide()
        panel.resize(width, height)
        panel.show()
        QApplication.processEvents()
        panel.refresh_all()
        if view_state:
            panel.restore_view_state(view_state)
        _settle(panel)
        widget: QWidget = panel
        if figure is not None:
            panel.enlarge_figure(figure)
            widget = panel.figure_widgets[figure]
            grid = panel.plot_grid
            if grid.enlarged is not widget or grid.companions:  # the figure alone, not its stage
                grid.enlarge(widget)
                if panel.plot_scroll is not None:
                    panel.plot_scroll.reflow(panel.plot_scroll.width(), panel.plot_scroll.height())
                _settle(panel)
            for _ in range(4):  # the panel's margins around the cell: grow it by what is missing
                dw, dh = width - widget.width(), height - widget.height()
                if dw == dh == 0:
                    break
                panel.resize(panel.width() + dw, panel.height() + dh)
                _settle(panel)
        if (widget.width(), widget.height()) != (width, height):
            raise RuntimeError(
                f"could not lay the figure out at {width}×{height} "
                f"(it needs at least {widget.minimumWidth()}×{widget.minimumHeight()})"
            )
        yield panel, widget
    finally:
        panel.dispose()
        panel.close()
        panel.deleteLater()


def draw_text_unhinted(widget: QWidget) -> None:
    """Let ``widget`` and everything drawn in it draw text unhinted: glyph outlines as designed,
    at fractional positions, not snapped to the pixel grid (:attr:`QFont.HintingPreference.
    PreferNoHinting`).

    Only the hinting preference is set (the fonts keep their families and sizes), on the
    widget's font: its children inherit it, and a font a painter is given takes it from the
    widget painted on when it does not set it itself; the fonts of the copy's style
    (``Style.font``, for plots, axes and read-outs) are unhinted by the style the copy gets
    (``hinted_text=False``, see :func:`staged`). Why: an export's PNG
    and its SVG come from the same staged copy, and SVG renderers (librsvg, Qt's) draw text
    unhinted; hinted raster text differs from them by its stems alone (RMSE up to 0.06 on a
    figure with much text, under 0.03 unhinted). The window on screen keeps hinted text.
    """
    font = QFont(widget.font())
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    widget.setFont(font)


def staged_copy(
    panel: Any, size: tuple[int, int], figure: str | None = None
) -> AbstractContextManager[tuple[Any, QWidget]]:
    """:func:`staged` for a copy of ``panel`` (its values and zoom); the panel is untouched."""
    return staged(type(panel), panel.state.values(), size, figure=figure,
                  view_state=panel.view_state())  # fmt: skip


def figure_image(panel: Any, figure: str | None, size: tuple[int, int]) -> QImage:
    """``figure`` of ``panel`` (``None``: the whole tab) drawn exactly ``size``."""
    with staged_copy(panel, size, figure) as (_, widget):
        return render_image(widget, size[0])


# -- figure ---------------------------------------------------------------------------------------
def image_height(widget: QWidget, width: int) -> int:
    """Height in pixels of a ``width``-pixel picture of ``widget`` (same aspect ratio)."""
    return max(1, round(max(widget.height(), 1) * width / max(widget.width(), 1)))


def render_image(widget: QWidget, width: int) -> QImage:
    """``widget`` drawn ``width`` pixels wide at its current aspect ratio (crisp, not scaled)."""
    if not MIN_PNG_WIDTH <= width <= MAX_PNG_WIDTH:
        raise ValueError(f"width must be from {MIN_PNG_WIDTH} to {MAX_PNG_WIDTH} pixels")
    height = image_height(widget, width)
    check_picture_size(width, height)  # (before the image's memory is taken)
    ratio = width / max(widget.width(), 1)
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(widget.palette().window().color())
    QWidget.render(widget, image)  # (a QGraphicsView's own render() scales its scene)
    image.setDevicePixelRatio(1.0)  # a plain picture of `width` pixels for files and clipboard
    return image


def png_bytes(image: QImage) -> bytes:
    """``image`` encoded as a PNG file, in memory."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise OSError(f"could not encode a {image.width()} × {image.height()} PNG picture")
    return bytes(buffer.data().data())


def write_png(
    widget: QWidget, path: str | os.PathLike[str], width: int, *, overwrite: bool = False
) -> Path:
    """Save :func:`render_image` as PNG (see the module doc for how files are written)."""
    return write_atomic(path, png_bytes(render_image(widget, width)), overwrite=overwrite)


def svg_bytes(widget: QWidget, *, title: str = "") -> bytes:
    """``widget`` as an SVG document that librsvg and Qt's renderer draw as its PNG.

    The generator's resolution is the widget's: a font of ``n`` points is as many pixels in the
    drawing as on screen, so text runs laid out with the screen's metrics keep their places.
    Cosmetic strokes are mapped to pixel units (:func:`~posenc_gui.widgets.svg.
    flatten_cosmetic_strokes`) for renderers that ignore ``non-scaling-stroke``.
    """
    from PySide6.QtSvg import QSvgGenerator

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer)
    size = QSize(max(widget.width(), 1), max(widget.height(), 1))
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setResolution(widget.logicalDpiX())
    gen.setTitle(title)
    gen.setDescription("Exported from PosEnc Explorer")
    painter = QPainter()
    if not painter.begin(gen):
        raise OSError("could not paint an SVG drawing")
    try:
        QWidget.render(widget, painter, QPoint(0, 0))
    finally:
        painter.end()
    svg = portable_svg(bytes(buffer.data().data()), widget.logicalDpiY())
    return set_pixel_size(svg, size.width(), size.height())


def write_svg(
    widget: QWidget, path: str | os.PathLike[str], *, title: str = "", overwrite: bool = False
) -> Path:
    """Save ``widget`` as an SVG vector drawing (:func:`svg_bytes`, written as the module doc
    says: a full disk is an error, never a truncated drawing)."""
    return write_atomic(path, svg_bytes(widget, title=title), overwrite=overwrite)


def copy_image(widget: QWidget, width: int) -> QImage:
    """Put :func:`render_image` on the clipboard; returns the image."""
    image = render_image(widget, width)
    clipboard = QGuiApplication.clipboard()
    clipboard.setImage(image)
    return image


# -- data -----------------------------------------------------------------------------------------
def _header(s: Series) -> str:
    return f"{s.label} [{s.unit}]" if s.unit else s.label


def _cell(x: Any) -> str:
    if isinstance(x, bool | np.bool_):
        return "1" if x else "0"
    if isinstance(x, int | np.integer):
        return str(int(x))
    if isinstance(x, float | np.floating):
        return repr(float(x))
    if isinstance(x, complex | np.complexfloating):
        return repr(complex(x))
    return str(x)


def columns(series: Mapping[str, Series]) -> list[tuple[str, str, np.ndarray]]:
    """``(name, header, values)`` of each CSV column of one view (see the module doc)."""
    out: list[tuple[str, str, np.ndarray]] = []
    for name, s in series.items():
        arr = np.asarray(s.values)
        if arr.ndim <= 1:
            out.append((name, _header(s), arr.reshape(-1)))
        elif arr.ndim == 2:
            for j in range(arr.shape[1]):
                out.append((f"{name}[:,{j}]", f"{_header(s)} (column {j})", arr[:, j]))
        else:  # not shown by any tab today: flattened, still labelled
            out.append((f"{name}.flat", f"{_header(s)} (flattened {arr.shape})", arr.reshape(-1)))
    return out


def csv_text(
    data: Data, *, tab: str = "", title: str = "", params: Mapping[str, Any] | None = None
) -> str:
    """The CSV document of :func:`write_csv` as text."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    buf.write(f"# PosEnc Explorer: tab {tab} ({title})\n" if tab else "# PosEnc Explorer\n")
    if params:
        buf.write("# parameters: " + "; ".join(f"{k}={v}" for k, v in params.items()) + "\n")
    first = True
    for view, series in data.items():
        cols = columns(series)
        if not cols:
            continue
        buf.write("#\n" if first else "\n")
        first = False
        names = [c[0] for c in cols]
        buf.write(f"# view {view}: {', '.join(names)}\n")
        writer.writerow([c[1] for c in cols])
        rows = max(len(c[2]) for c in cols)
        for i in range(rows):
            writer.writerow([_cell(c[2][i]) if i < len(c[2]) else "" for c in cols])
    return buf.getvalue()


def write_csv(
    data: Data,
    path: str | os.PathLike[str],
    *,
    tab: str = "",
    title: str = "",
    params: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Every view's series in one CSV file, a section per view (see the module doc)."""
    text = csv_text(data, tab=tab, title=title, params=params)
    return write_atomic(path, text.encode("utf-8-sig"), overwrite=overwrite)


def npz_arrays(
    data: Data, *, tab: str = "", title: str = "", params: Mapping[str, Any] | None = None
) -> dict[str, np.ndarray]:
    """The arrays :func:`write_npz` stores: ``"view/name"`` → values, plus ``"__meta__"``."""
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, Any] = {"tab": tab, "title": title, "params": dict(params or {}), "series": {}}
    for view, series in data.items():
        for name, s in series.items():
            key = f"{view}/{name}"
            arrays[key] = np.asarray(s.values)
            meta["series"][key] = {"label": s.label, "unit": s.unit}
    arrays["__meta__"] = np.asarray(json.dumps(meta, ensure_ascii=False, default=str))
    return arrays


def write_npz(
    data: Data,
    path: str | os.PathLike[str],
    *,
    tab: str = "",
    title: str = "",
    params: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Every series in one ``.npz`` archive (``np.savez``; keys ``"view/name"``)."""
    arrays = npz_arrays(data, tab=tab, title=title, params=params)
    buffer = io.BytesIO()  # (a file object: numpy appends no second ".npz")
    np.savez(buffer, allow_pickle=False, **arrays)
    return write_atomic(path, buffer.getvalue(), overwrite=overwrite)


def npy_name(key: str) -> str:
    """File name of the series ``"view/name"`` in an ``.npy`` folder: ``view__name.npy``."""
    return key.replace("/", "__") + ".npy"


def _is_npy_export(folder: Path) -> bool:
    return all(
        (f.name == "meta.json" or f.suffix == ".npy") and f.is_file() for f in folder.iterdir()
    )


def write_npy_folder(
    data: Data,
    path: str | os.PathLike[str],
    *,
    tab: str = "",
    title: str = "",
    params: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Every series as its own ``.npy`` file (``np.load`` reads each, no pickle) in a new folder
    ``path``: ``view__name.npy``, plus ``meta.json`` (tab, parameters, each series' label and
    unit), written by :func:`write_folder`: a failure leaves nothing; an existing ``path`` is
    replaced only with ``overwrite`` and only when it holds nothing but files of an earlier
    export of this kind (:class:`FileExistsError` otherwise).
    """
    arrays = npz_arrays(data, tab=tab, title=title, params=params)
    meta = str(arrays.pop("__meta__"))

    def files() -> Iterator[tuple[str, bytes]]:
        for key, values in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, values, allow_pickle=False)
            yield npy_name(key), buffer.getvalue()
        yield "meta.json", meta.encode("utf-8")

    return write_folder(path, files(), overwrite=overwrite, replaceable=_is_npy_export,
                        what="an earlier .npy export")  # fmt: skip


def write_folder(
    path: str | os.PathLike[str],
    files: Iterable[tuple[str, bytes]],
    *,
    overwrite: bool,
    replaceable: Callable[[Path], bool],
    what: str,
) -> Path:
    """A new folder ``path`` holding ``files`` (``(name, contents)``, produced one at a time).

    Each file is written by :func:`~posenc_gui.state.jsonfile.write_atomic` (verified) into a
    temporary folder beside ``path`` (mode by the umask), which is then renamed into place: a
    failure or an exception from ``files`` leaves nothing new and the old folder in place. An
    existing ``path`` that is not a folder or a file (a device, a named pipe) is refused
    (:class:`~posenc_gui.state.jsonfile.WriteRefusedError`); an existing one is replaced only
    with ``overwrite`` and when ``replaceable(path)`` (it holds only ``what``), else
    :class:`FileExistsError`. A symlink is followed.
    """
    given = Path(path)
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            raise WriteRefusedError(f"{str(given)!r} is not a folder ({file_kind(mode)})")
        if not overwrite:
            raise FileExistsError(f"{given} exists already; not replaced")
        if not stat.S_ISDIR(mode) or not replaceable(target):
            raise FileExistsError(f"{given} holds other files than {what}; not replaced")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # (mkdtemp makes it private: 0700)
        for name, contents in files:
            write_atomic(tmp / name, contents, overwrite=False)
        _move_folder(tmp, target)
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(err, OSError) and not isinstance(err, FileExistsError | WriteRefusedError):
            raise OSError(err.errno, err.strerror or str(err), str(given)) from None
        raise
    return target


def _move_folder(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` to ``target``; an existing ``target`` is put back if that fails."""
    if not target.exists():
        os.rename(tmp, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
    os.rename(target, old / target.name)
    try:
        os.rename(tmp, target)
    except OSError:
        os.rename(old / target.name, target)  # put the old files back
        raise
    shutil.rmtree(old, ignore_errors=True)
