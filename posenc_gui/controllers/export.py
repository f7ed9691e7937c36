"""File ▸ Export: one figure of the current tab at a slide size (1920 × 1080, 1280 × 720 or
W×H) or the whole tab's plots (PNG at a chosen width) as PNG, SVG or an animated GIF; its data as
CSV, ``.npz`` or a folder of ``.npy`` files; the plots to the clipboard.

The figure offered first is the enlarged one, else the one under the pointer (when the menu
opened, or when the shortcut was pressed), else the one with the keyboard focus. A figure is laid
out at the size chosen in an offscreen copy of the tab (:func:`posenc_gui.widgets.export.staged`):
nothing on screen changes. The writing lives in :mod:`posenc_gui.widgets.export` (imported on
first use: it needs pyqtgraph, which loads after the window paints); this controller asks for the
figure, size and file, reports failures and remembers the PNG width and the size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCursor
from PySide6.QtWidgets import QMenu, QMessageBox, QProgressDialog

from posenc_gui import APP_NAME
from posenc_gui.controllers.common import WindowParts, add_action, ask_save_path, reason

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel

#: QSettings key of the PNG width last chosen.
EXPORT_WIDTH_KEY = "export_width"
#: QSettings key of the figure size last chosen (``"WxH"``).
EXPORT_SIZE_KEY = "export_figure_size"


def panel_meta(panel: Panel) -> dict[str, Any]:
    """What a data file says about where its arrays come from."""
    return {"tab": panel.model.id, "title": panel.model.title, "params": panel.state.values()}


class ExportController(QObject):
    """Exports of the tab on screen; its actions are enabled once the panels have loaded."""

    def __init__(self, parts: WindowParts) -> None:
        super().__init__(parts.dialog_parent())
        self._parts = parts
        self.actions: list[QAction] = []
        #: The figure under the pointer when the menu opened (``None``: none, or not open).
        self._pointed: str | None = None

    def build_menu(self, menu: QMenu) -> None:
        """The figure and data entries of the File menu (disabled until the panels load)."""
        entries: list[tuple[str, str, list[str] | None, Callable[[], object], str]] = [
            ("&Export figure as PNG…", "export_png_action", ["Ctrl+E"], self.png_dialog,
             "Save one figure at a slide size (1920 × 1080, 1280 × 720, W×H), or the tab's "
             "plots, as a PNG picture"),
            ("Export figure as SV&G…", "export_svg_action", ["Ctrl+Shift+E"], self.svg_dialog,
             "Save one figure at a slide size, or the tab's plots, as an SVG drawing"),
            ("Export figure as animated G&IF…", "export_figure_gif_action", None,
             self.gif_dialog,
             "Save one loop of the tab's animation, of one figure at a slide size, as a GIF"),
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
        (self.png_action, self.svg_action, self.gif_action, self.csv_action, self.npz_action,
         self.npy_action, self.copy_action) = self.actions  # fmt: skip
        menu.aboutToShow.connect(self._note_pointer)
        menu.aboutToHide.connect(self._forget_pointer)

    def _note_pointer(self) -> None:
        panel = self._parts.current_panel()
        self._pointed = panel.figure_at(QCursor.pos()) if panel is not None else None

    def _forget_pointer(self) -> None:
        # (after the chosen action ran: it is triggered right after the menu hides)
        QTimer.singleShot(0, self._clear_pointed)

    def _clear_pointed(self) -> None:
        self._pointed = None

    def default_figure(self) -> str | None:
        """The figure an export offers first: the enlarged one, else the one under the pointer
        (when the menu opened, or now), else the focused one; ``None``: the whole tab."""
        panel = self._parts.current_panel()
        if panel is None:
            return None
        return (panel.enlarged_figure or self._pointed or panel.figure_at(QCursor.pos())
                or panel.focused_figure())  # fmt: skip

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

    def figure_png(
        self, path: str | Path, figure: str, size: tuple[int, int], *, overwrite: bool = False
    ) -> Path:
        """Save ``figure`` of the tab as a PNG of exactly ``size``, laid out at that size."""
        from posenc_gui.widgets import export

        with export.staged_copy(self._panel(), size, figure) as (_, widget):
            return export.write_png(widget, path, size[0], overwrite=overwrite)

    def figure_svg(
        self, path: str | Path, figure: str, size: tuple[int, int], *, overwrite: bool = False
    ) -> Path:
        """Save ``figure`` of the tab as an SVG drawing of exactly ``size``."""
        from posenc_gui.widgets import export

        panel = self._panel()
        title = f"{APP_NAME}: {panel.model.title} — {figure}"
        with export.staged_copy(panel, size, figure) as (_, widget):
            return export.write_svg(widget, path, title=title, overwrite=overwrite)

    def gif(
        self, path: str | Path, figure: str | None, size: tuple[int, int] | None = None, *,
        width: int | None = None, frames: int = 60, overwrite: bool = False,
        progress: Any = None,
    ) -> Path:  # fmt: skip
        """One loop of the tab's animation as a GIF: of ``figure`` at exactly ``size`` (in an
        offscreen copy: the tab on screen keeps its values), or of the whole tab's plots
        ``width`` pixels wide (``figure=None``, the values put back afterwards)."""
        from posenc_gui.widgets import animation, export

        panel = self._panel()
        if figure is None:
            settings = animation.AnimationSettings(frames, width or self.width())
            return animation.export_gif(panel, export.figure_widget(panel), path, settings,
                                        overwrite=overwrite, progress=progress)  # fmt: skip
        if size is None:
            raise ValueError("a figure is exported at a size (W×H)")
        settings = animation.AnimationSettings(frames, size[0])
        with export.staged_copy(panel, size, figure) as (copy, widget):
            return animation.export_gif(copy, widget, path, settings, overwrite=overwrite,
                                        progress=progress)  # fmt: skip

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
        """Copy the tab's figure to the clipboard (at the PNG export width); refused, saying the
        cap, when that picture would be over it (:data:`~posenc_gui.widgets.export.
        MAX_PICTURE_PIXELS`)."""
        from posenc_gui.widgets import export

        panel = self._parts.current_panel()
        if panel is None:
            return False
        try:
            image = export.copy_image(export.figure_widget(panel), self.width())
        except export.PictureTooLargeError as err:  # (nothing was drawn nor copied)
            self._parts.messages.error("Copy failed", "Could not copy the figure.", reason(err))
            return False
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

    def last_size(self) -> tuple[int, int]:
        """The figure size last chosen (1920 × 1080 at first)."""
        from posenc_gui.widgets import export

        raw = QSettings().value(EXPORT_SIZE_KEY, "", type=str)
        try:
            return export.parse_size(raw if isinstance(raw, str) else "")
        except ValueError:
            return export.SLIDE_SIZES[0]

    def choose(self, kind: str, title: str) -> Any:
        """The figure dialog (:class:`~posenc_gui.widgets.export_dialog.FigureExportDialog`);
        the choice, or ``None`` when cancelled."""
        from posenc_gui.widgets.export_dialog import FigureExportDialog

        pointed = self._pointed  # (read first: the menu forgets it once it has closed)
        panel = self._parts.current_panel()
        if panel is None:
            return None
        current = panel.enlarged_figure or pointed or self.default_figure()
        dialog = FigureExportDialog(
            title, kind, list(panel.figure_widgets), current=current, width=self.width(),
            size=self.last_size(), parent=self._parts.dialog_parent(),
        )  # fmt: skip
        try:
            if not dialog.exec():
                return None
            chosen = dialog.choice()
        finally:
            dialog.deleteLater()
        if chosen.size is not None:
            QSettings().setValue(EXPORT_SIZE_KEY, f"{chosen.size[0]}x{chosen.size[1]}")
        elif kind != "svg":
            QSettings().setValue(EXPORT_WIDTH_KEY, chosen.width)
        return chosen

    def _name(self, panel: Panel, chosen: Any, suffix: str) -> str:
        if chosen.figure is None:
            return f"{panel.model.id}.{suffix}"
        w, h = chosen.size
        return f"{panel.model.id}-{chosen.figure}-{w}x{h}.{suffix}"

    def png_dialog(self) -> None:
        """File ▸ Export figure as PNG…: a figure and a size (or the whole tab and a width),
        then a file."""
        chosen = self.choose("png", "Export figure as PNG")
        panel = self._parts.current_panel()
        if chosen is None or panel is None:
            return
        path = self.ask_save_path("Export figure as PNG", self._name(panel, chosen, "png"),
                                  "PNG images (*.png)", "png")  # fmt: skip
        if path is None:
            return
        if chosen.figure is None:
            self._run("picture", path, self.png, width=chosen.width, overwrite=True)
        else:
            self._run("picture", path, self.figure_png, figure=chosen.figure, size=chosen.size,
                      overwrite=True)  # fmt: skip

    def svg_dialog(self) -> None:
        """File ▸ Export figure as SVG…: a figure and a size (or the whole tab), then a file."""
        chosen = self.choose("svg", "Export figure as SVG")
        panel = self._parts.current_panel()
        if chosen is None or panel is None:
            return
        path = self.ask_save_path("Export figure as SVG", self._name(panel, chosen, "svg"),
                                  "SVG drawings (*.svg)", "svg")  # fmt: skip
        if path is None:
            return
        if chosen.figure is None:
            self._run("drawing", path, self.svg, overwrite=True)
        else:
            self._run("drawing", path, self.figure_svg, figure=chosen.figure, size=chosen.size,
                      overwrite=True)  # fmt: skip

    def gif_dialog(self) -> None:
        """File ▸ Export figure as animated GIF…: figure, size and frames, a file, then a
        progress dialog that can cancel."""
        from posenc_gui.widgets.animation import ExportCancelledError

        chosen = self.choose("gif", "Export figure as animated GIF")
        panel = self._parts.current_panel()
        if chosen is None or panel is None:
            return
        path = self.ask_save_path("Export figure as animated GIF",
                                  self._name(panel, chosen, "gif"), "GIF animations (*.gif)",
                                  "gif")  # fmt: skip
        if path is None:
            return
        dialog = QProgressDialog("Rendering…", "Cancel", 0, 1, self._parts.dialog_parent())
        dialog.setObjectName("figure_gif_progress")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)

        def progress(done: int, total: int, text: str) -> bool:
            dialog.setMaximum(total)
            dialog.setLabelText(text)
            dialog.setValue(done)
            return not dialog.wasCanceled()

        try:
            self._run("animation", path, self.gif, figure=chosen.figure, size=chosen.size,
                      width=chosen.width, frames=chosen.frames, overwrite=True,
                      progress=progress)  # fmt: skip
        except ExportCancelledError:
            self._parts.messages.show("Export cancelled: nothing was written")
        finally:
            dialog.close()
            dialog.deleteLater()

    def _file_dialog(self, what: str, title: str, suffix: str, filters: str,
                     write: Callable[..., Path]) -> None:  # fmt: skip
        panel = self._parts.current_panel()
        if panel is None:
            return
        path = self.ask_save_path(title, f"{panel.model.id}.{suffix}", filters, suffix)
        if path is not None:
            self._run(what, path, write, overwrite=True)

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
