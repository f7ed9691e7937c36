"""File ▸ Export: the current tab's figure as PNG (at a chosen width) or SVG, its data as CSV,
``.npz`` or a folder of ``.npy`` files, and the figure to the clipboard.

The writing itself lives in :mod:`posenc_gui.widgets.export` (imported on first use: it needs
pyqtgraph, which loads after the window paints); this controller asks for widths and files,
reports failures and remembers the PNG width.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QMenu, QMessageBox

from posenc_gui import APP_NAME
from posenc_gui.controllers.common import WindowParts, add_action, ask_save_path, reason

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel

#: QSettings key of the PNG width last chosen.
EXPORT_WIDTH_KEY = "export_width"


def panel_meta(panel: Panel) -> dict[str, Any]:
    """What a data file says about where its arrays come from."""
    return {"tab": panel.model.id, "title": panel.model.title, "params": panel.state.values()}


class ExportController(QObject):
    """Exports of the tab on screen; its actions are enabled once the panels have loaded."""

    def __init__(self, parts: WindowParts) -> None:
        super().__init__(parts.dialog_parent())
        self._parts = parts
        self.actions: list[QAction] = []

    def build_menu(self, menu: QMenu) -> None:
        """The figure and data entries of the File menu (disabled until the panels load)."""
        entries: list[tuple[str, str, list[str] | None, Callable[[], object], str]] = [
            ("&Export figure as PNG…", "export_png_action", ["Ctrl+E"], self.png_dialog,
             "Save the tab's plots as a PNG picture of a chosen width (for slides)"),
            ("Export figure as SV&G…", "export_svg_action", ["Ctrl+Shift+E"], self.svg_dialog,
             "Save the tab's plots as an SVG drawing"),
            ("Export &data as CSV…", "export_csv_action", ["Ctrl+D"], self.csv_dialog,
             "Save every array the tab shows as CSV (one section per view)"),
            ("Export data as NumP&y (.npz)…", "export_npz_action", ["Ctrl+Shift+D"],
             self.npz_dialog, "Save every array the tab shows in a NumPy .npz archive"),
            ("E&xport data as .npy files…", "export_npy_action", None, self.npy_dialog,
             "Save every array the tab shows as its own .npy file, in a new folder"),
            ("&Copy figure", "copy_figure_action", ["Ctrl+Shift+C"], self.copy_figure,
             "Copy the tab's plots to the clipboard as a picture"),
        ]  # fmt: skip
        self.actions = [
            add_action(self, menu, text, name, keys, slot, tip=tip)
            for text, name, keys, slot, tip in entries
        ]
        (self.png_action, self.svg_action, self.csv_action, self.npz_action, self.npy_action,
         self.copy_action) = self.actions  # fmt: skip

    # -- writing --------------------------------------------------------------------------------
    def _panel(self) -> Panel:
        panel = self._parts.current_panel()
        if panel is None:
            raise RuntimeError("the tab is still loading")
        return panel

    def width(self) -> int:
        """The PNG width last chosen (also used for Copy figure)."""
        from posenc_gui.widgets import export

        raw = QSettings().value(EXPORT_WIDTH_KEY, export.DEFAULT_PNG_WIDTH, type=int)
        w = raw if isinstance(raw, int) else export.DEFAULT_PNG_WIDTH
        return min(max(w, export.MIN_PNG_WIDTH), export.MAX_PNG_WIDTH)

    def png(self, path: str | Path, width: int | None = None, *, overwrite: bool = False) -> Path:
        """Save the tab's figure as PNG, ``width`` pixels wide (:class:`FileExistsError`...)."""
        from posenc_gui.widgets import export

        fig = export.figure_widget(self._panel())
        return export.write_png(fig, path, width or self.width(), overwrite=overwrite)

    def svg(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save the tab's figure as SVG."""
        from posenc_gui.widgets import export

        panel = self._panel()
        title = f"{APP_NAME}: {panel.model.title}"
        return export.write_svg(export.figure_widget(panel), path, title=title,
                                overwrite=overwrite)  # fmt: skip

    def csv(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save every array the tab shows as CSV (one section per view)."""
        from posenc_gui.widgets import export

        panel = self._panel()
        return export.write_csv(panel.data(), path, overwrite=overwrite, **panel_meta(panel))

    def npz(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save every array the tab shows in a ``.npz`` archive (keys ``view/name``)."""
        from posenc_gui.widgets import export

        panel = self._panel()
        return export.write_npz(panel.data(), path, overwrite=overwrite, **panel_meta(panel))

    def npy(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save every array the tab shows as ``.npy`` files in a new folder (``view__name.npy``
        and ``meta.json``)."""
        from posenc_gui.widgets import export

        panel = self._panel()
        return export.write_npy_folder(panel.data(), path, overwrite=overwrite,
                                       **panel_meta(panel))  # fmt: skip

    def copy_figure(self) -> bool:
        """Copy the tab's figure to the clipboard (at the PNG export width)."""
        from posenc_gui.widgets import export

        panel = self._parts.current_panel()
        if panel is None:
            return False
        image = export.copy_image(export.figure_widget(panel), self.width())
        self._parts.messages.show(
            f"Figure copied to the clipboard ({image.width()} × {image.height()})"
        )
        return True

    # -- dialogs --------------------------------------------------------------------------------
    def ask_save_path(self, title: str, name: str, filters: str, suffix: str) -> Path | None:
        """A save dialog over the window (it asks before replacing a file)."""
        return ask_save_path(self._parts.dialog_parent(), title, name, filters, suffix)

    def _run(self, what: str, path: Path, write: Callable[..., Path], **kwargs: Any) -> None:
        try:
            write(path, **kwargs)
        except (OSError, RuntimeError, ValueError) as err:
            self._parts.messages.error(
                "Export failed", f"Could not save the {what} to {path}.", reason(err)
            )
            return
        self._parts.messages.show(f"Saved {path}")

    def png_dialog(self) -> None:
        """File ▸ Export figure as PNG…: a width, then a file."""
        from posenc_gui.widgets import export

        panel = self._parts.current_panel()
        if panel is None:
            return
        fig = export.figure_widget(panel)
        width, ok = QInputDialog.getInt(
            self._parts.dialog_parent(), "Export figure as PNG",
            f"Picture width in pixels (1920 for a full-HD slide; the height follows the "
            f"figure's shape, {fig.width()} × {fig.height()} on screen):",
            self.width(), export.MIN_PNG_WIDTH, export.MAX_PNG_WIDTH, 16,
        )  # fmt: skip
        if not ok:
            return
        QSettings().setValue(EXPORT_WIDTH_KEY, width)
        path = self.ask_save_path("Export figure as PNG", f"{panel.model.id}.png",
                                  "PNG images (*.png)", "png")  # fmt: skip
        if path is not None:
            self._run("picture", path, self.png, width=width, overwrite=True)

    def _file_dialog(self, what: str, title: str, suffix: str, filters: str,
                     write: Callable[..., Path]) -> None:  # fmt: skip
        panel = self._parts.current_panel()
        if panel is None:
            return
        path = self.ask_save_path(title, f"{panel.model.id}.{suffix}", filters, suffix)
        if path is not None:
            self._run(what, path, write, overwrite=True)

    def svg_dialog(self) -> None:
        """File ▸ Export figure as SVG…"""
        self._file_dialog("drawing", "Export figure as SVG", "svg", "SVG drawings (*.svg)",
                          self.svg)  # fmt: skip

    def csv_dialog(self) -> None:
        """File ▸ Export data as CSV…"""
        self._file_dialog("data", "Export data as CSV", "csv", "CSV files (*.csv)", self.csv)

    def npz_dialog(self) -> None:
        """File ▸ Export data as NumPy (.npz)…"""
        self._file_dialog("data", "Export data as NumPy archive", "npz",
                          "NumPy archives (*.npz)", self.npz)  # fmt: skip

    def npy_dialog(self) -> None:
        """File ▸ Export data as .npy files…: a new folder with one ``.npy`` per array."""
        panel = self._parts.current_panel()
        if panel is None:
            return
        path = self.ask_save_path("Export data as .npy files (a new folder)",
                                  f"{panel.model.id}_data", "Folders (*)", "")  # fmt: skip
        if path is None:
            return
        overwrite = False
        if path.exists():
            answer = QMessageBox.question(
                self._parts.dialog_parent(), "Replace folder?",
                f"“{path.name}” exists already. Replace it (only when it holds nothing but an "
                "earlier .npy export)?",
            )  # fmt: skip
            if answer != QMessageBox.StandardButton.Yes:
                return
            overwrite = True
        self._run("data", path, self.npy, overwrite=overwrite)
