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

Every file is written atomically (a temporary file in the target folder, then renamed) and an
existing file is never replaced unless ``overwrite=True`` (:class:`FileExistsError` otherwise).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget

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

Data = Mapping[str, Mapping[str, Series]]


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
    model = panel_cls.model
    if figure is not None and figure not in model.figures:
        raise KeyError(
            f"tab {model.id!r} has no figure {figure!r}; figures: {', '.join(model.figures)}"
        )
    if scale is None:
        scale = style_mod.current().scale if figure is None else slide_scale(height)
    look = style_mod.StyleHub(style_mod.current().replace(scale=scale))
    panel = panel_cls(ParamState(model, dict(values)), style_hub=look)
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


# -- atomic writing -------------------------------------------------------------------------------
def atomic_write(
    path: str | os.PathLike[str],
    write: Callable[[Path], None],
    *,
    overwrite: bool = False,
) -> Path:
    """Call ``write(tmp)`` on a temporary file next to ``path``, then move it into place.

    A failure (or a crash) never leaves a half-written ``path``. With ``overwrite=False`` an
    existing ``path`` raises :class:`FileExistsError` and is left alone.
    """
    target = Path(path)
    if not overwrite and target.exists():
        raise FileExistsError(f"{target} exists already; not replaced")
    fd, name = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=target.suffix, dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        if overwrite:
            os.replace(tmp, target)
        else:
            _move_no_clobber(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def _move_no_clobber(tmp: Path, target: Path) -> None:
    """Rename without replacing a file that appeared meanwhile (a hard link is atomic)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise FileExistsError(f"{target} exists already; not replaced") from None
    except OSError:  # no hard links here (FAT, some network shares): check, then rename
        if target.exists():
            raise FileExistsError(f"{target} exists already; not replaced") from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def _write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    with open(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)


# -- figure ---------------------------------------------------------------------------------------
def image_height(widget: QWidget, width: int) -> int:
    """Height in pixels of a ``width``-pixel picture of ``widget`` (same aspect ratio)."""
    return max(1, round(max(widget.height(), 1) * width / max(widget.width(), 1)))


def render_image(widget: QWidget, width: int) -> QImage:
    """``widget`` drawn ``width`` pixels wide at its current aspect ratio (crisp, not scaled)."""
    if not MIN_PNG_WIDTH <= width <= MAX_PNG_WIDTH:
        raise ValueError(f"width must be from {MIN_PNG_WIDTH} to {MAX_PNG_WIDTH} pixels")
    ratio = width / max(widget.width(), 1)
    image = QImage(width, image_height(widget, width), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(widget.palette().window().color())
    QWidget.render(widget, image)  # (a QGraphicsView's own render() scales its scene)
    image.setDevicePixelRatio(1.0)  # a plain picture of `width` pixels for files and clipboard
    return image


def write_png(
    widget: QWidget, path: str | os.PathLike[str], width: int, *, overwrite: bool = False
) -> Path:
    """Save :func:`render_image` as PNG (atomically; see :func:`atomic_write`)."""
    image = render_image(widget, width)

    def write(tmp: Path) -> None:
        if not image.save(str(tmp), "PNG"):  # type: ignore[call-overload]
            raise OSError(f"could not write a PNG image to {tmp.parent}")

    return atomic_write(path, write, overwrite=overwrite)


def svg_bytes(widget: QWidget, *, title: str = "") -> bytes:
    """``widget`` as an SVG document that librsvg and Qt's renderer draw as its PNG.

    The generator's resolution is the widget's: a font of ``n`` points is as many pixels in the
    drawing as on screen, so text runs laid out with the screen's metrics keep their places.
    Cosmetic strokes are mapped to pixel units (:func:`~posenc_gui.widgets.svg.
    flatten_cosmetic_strokes`) for renderers that ignore ``non-scaling-stroke``.
    """
    from PySide6.QtCore import QBuffer, QIODevice
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
    """Save ``widget`` as an SVG vector drawing (atomically; see :func:`svg_bytes`)."""
    data = svg_bytes(widget, title=title)

    def write(tmp: Path) -> None:
        tmp.write_bytes(data)

    return atomic_write(path, write, overwrite=overwrite)


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
    return atomic_write(path, lambda tmp: _write_text(tmp, text, "utf-8-sig"), overwrite=overwrite)


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

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:  # a file object: numpy appends no second ".npz"
            _savez(fh, arrays)

    return atomic_write(path, write, overwrite=overwrite)


def npy_name(key: str) -> str:
    """File name of the series ``"view/name"`` in an ``.npy`` folder: ``view__name.npy``."""
    return key.replace("/", "__") + ".npy"


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
    unit). Written into a temporary folder beside it, then renamed: a failure leaves nothing.
    An existing ``path`` raises :class:`FileExistsError` unless ``overwrite`` (then it is
    replaced, and only when it holds nothing but files of an earlier export of this kind).
    """
    target = Path(path)
    arrays = npz_arrays(data, tab=tab, title=title, params=params)
    meta = str(arrays.pop("__meta__"))
    if target.exists():
        if not overwrite:
            raise FileExistsError(f"{target} exists already; not replaced")
        if not target.is_dir() or any(
            not (f.name == "meta.json" or f.suffix == ".npy") or not f.is_file()
            for f in target.iterdir()
        ):
            raise FileExistsError(
                f"{target} holds other files than an earlier .npy export; not replaced"
            )
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for key, values in arrays.items():
            np.save(tmp / npy_name(key), values, allow_pickle=False)
        _write_text(tmp / "meta.json", meta)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
            old.rmdir()
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _savez(fh: IO[bytes], arrays: Mapping[str, np.ndarray]) -> None:
    np.savez(fh, allow_pickle=False, **arrays)
