"""Render the app icon (posenc_gui/resources/icon.svg) into the hicolor PNG sizes.

    .venv/bin/python packaging/render_icons.py

writes ``posenc_gui/resources/icons/hicolor/<N>x<N>/apps/<APP_ID>.png`` for every N in
``SIZES`` and ``hicolor/scalable/apps/<APP_ID>.svg`` (a copy of icon.svg), with Qt's
QSvgRenderer on the offscreen platform. The results are committed: run it again after changing
icon.svg (tests/test_packaging.py checks the PNGs are current in size and the SVG copy is equal).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "posenc_gui" / "resources" / "icon.svg"
HICOLOR = ROOT / "posenc_gui" / "resources" / "icons" / "hicolor"
APP_ID = "io.github.posenc.PosEncExplorer"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def render(sizes: tuple[int, ...] = SIZES, hicolor: Path = HICOLOR, svg: Path = SVG) -> list[Path]:
    """Write the PNGs and the scalable copy; the paths written."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {svg}")
    written: list[Path] = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        out = hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(out), "PNG"):
            raise SystemExit(f"cannot write {out}")
        written.append(out)
    scalable = hicolor / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable)
    written.append(scalable)
    return written


if __name__ == "__main__":
    for path in render():
        print(path.relative_to(ROOT))
