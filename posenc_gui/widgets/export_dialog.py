"""The dialog of File ▸ Export figure as PNG / SVG / GIF: which figure, at which size.

A figure (one plot or read-out block of the tab) is exported at a slide size — 1920 × 1080,
1280 × 720 or a size typed as ``W×H`` — laid out for that size; "Whole tab" exports the plot area
as on screen (PNG: at a chosen width). A typed size is checked as it is typed: the message under
it says what is wrong and OK stays disabled until it is right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.widgets import export

#: Frames of one loop in a GIF (default and limits, as the animation export's).
DEFAULT_GIF_FRAMES, MIN_GIF_FRAMES, MAX_GIF_FRAMES = 60, 2, 1000


@dataclass(frozen=True)
class FigureChoice:
    """What the dialog chose: ``figure`` (``None``: the whole tab), ``size`` (the figure's
    size; ``None`` for the whole tab), ``width`` (the whole tab's PNG/GIF width), ``frames``."""

    figure: str | None
    size: tuple[int, int] | None
    width: int
    frames: int = DEFAULT_GIF_FRAMES


class FigureExportDialog(QDialog):
    """Figure, size (and for a GIF, frames) of an export; see the module doc."""

    def __init__(
        self, title: str, kind: str, figures: Sequence[str], *, current: str | None,
        width: int, size: tuple[int, int] = export.SLIDE_SIZES[0],
        parent: QWidget | None = None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("figure_export_dialog")
        self.setWindowTitle(title)
        self.kind = kind
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.figure_combo = QComboBox(self)
        self.figure_combo.setObjectName("figure_combo")
        self.figure_combo.setAccessibleName("Figure to export")
        self.figure_combo.addItem("Whole tab (the plots as on screen)", None)
        for fid in figures:
            self.figure_combo.addItem(f"Figure “{fid}”", fid)
        at = self.figure_combo.findData(current) if current is not None else 0
        self.figure_combo.setCurrentIndex(max(at, 0))
        self.size_combo = QComboBox(self)
        self.size_combo.setObjectName("size_combo")
        self.size_combo.setAccessibleName("Picture size")
        for w, h in export.SLIDE_SIZES:
            self.size_combo.addItem(f"{w} × {h} (slide)", (w, h))
        self.size_combo.addItem("Custom size…", None)
        self.custom_edit = QLineEdit(self)
        self.custom_edit.setObjectName("custom_size_edit")
        self.custom_edit.setAccessibleName("Custom size, width × height in pixels")
        self.custom_edit.setPlaceholderText("W×H, e.g. 1600×900")
        at = self.size_combo.findData(size)
        if at < 0:
            at = self.size_combo.count() - 1
            self.custom_edit.setText(f"{size[0]}×{size[1]}")
        self.size_combo.setCurrentIndex(at)
        self.width_spin = QSpinBox(self)
        self.width_spin.setObjectName("width_spin")
        self.width_spin.setRange(export.MIN_PNG_WIDTH, export.MAX_PNG_WIDTH)
        self.width_spin.setSingleStep(16)
        self.width_spin.setSuffix(" px")
        self.width_spin.setValue(width)
        self.width_spin.setAccessibleName("Picture width in pixels (whole tab)")
        self.frames_spin = QSpinBox(self)
        self.frames_spin.setObjectName("frames_spin")
        self.frames_spin.setRange(MIN_GIF_FRAMES, MAX_GIF_FRAMES)
        self.frames_spin.setValue(DEFAULT_GIF_FRAMES)
        self.frames_spin.setAccessibleName("Frames per loop")
        self.error = QLabel(self)
        self.error.setObjectName("size_error")
        self.error.setWordWrap(True)
        form.addRow("&Figure:", self.figure_combo)
        form.addRow("&Size:", self.size_combo)
        form.addRow("&Custom W×H:", self.custom_edit)
        form.addRow("Whole tab &width:", self.width_spin)
        if kind == "gif":
            form.addRow("F&rames per loop:", self.frames_spin)
        else:
            self.frames_spin.hide()
        lay.addLayout(form)
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.figure_combo.currentIndexChanged.connect(self._sync)
        self.size_combo.currentIndexChanged.connect(self._sync)
        self.custom_edit.textChanged.connect(self._sync)
        self._sync()

    def size_error(self) -> str:
        """Why the size typed cannot be used (``""``: it can, or no size is needed)."""
        if self.figure_combo.currentData() is None or self.size_combo.currentData() is not None:
            return ""
        try:
            export.parse_size(self.custom_edit.text())
        except ValueError as err:
            return str(err)[0].upper() + str(err)[1:] + "."
        return ""

    def _sync(self) -> None:
        whole = self.figure_combo.currentData() is None
        custom = self.size_combo.currentData() is None
        self.size_combo.setEnabled(not whole)
        self.custom_edit.setEnabled(not whole and custom)
        self.width_spin.setEnabled(whole and self.kind != "svg")
        message = self.size_error()
        self.error.setText(message)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not message)

    def choice(self) -> FigureChoice:
        """The figure, size, width and frames chosen (:class:`ValueError` for a bad size)."""
        figure = self.figure_combo.currentData()
        size: tuple[int, int] | None = None
        if figure is not None:
            data = self.size_combo.currentData()
            size = tuple(data) if data is not None else export.parse_size(self.custom_edit.text())
        return FigureChoice(figure, size, self.width_spin.value(), self.frames_spin.value())
