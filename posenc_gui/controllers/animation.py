"""Animation in the window: View ▸ Play/Pause (Space), ``[`` / ``]`` speed, the bar in the status
bar, and File ▸ Export animation as GIF… / PNG sequence… of the current tab's animated parameter.

The sweeping and the writing live in :mod:`posenc_gui.widgets.animation`; this controller follows
the tab on screen, asks for frames, width and a file, and shows the progress (with Cancel).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMessageBox, QProgressDialog

from posenc_gui.controllers.common import WindowParts, add_action, ask_save_path, reason
from posenc_gui.widgets.animation import (
    AnimationBar,
    AnimationExportDialog,
    AnimationSettings,
    Animator,
    ExportCancelledError,
    Progress,
    SpaceGuard,
)

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel

#: QSettings keys of the frames and width last chosen.
ANIMATION_FRAMES_KEY = "animation_frames"
ANIMATION_WIDTH_KEY = "animation_width"


class AnimationController(QObject):
    """Play/Pause of the current tab's animated parameter, its bar, and its exports."""

    def __init__(self, parts: WindowParts) -> None:
        parent = parts.dialog_parent()
        super().__init__(parent)
        self._parts = parts
        self.animator = Animator(self)
        self.animator.message.connect(parts.messages.show)
        #: Play, speed and range (kept in presentation mode); the window places it.
        self.bar = AnimationBar(self.animator, parent)
        # Space stays with text fields and buttons that have focus.
        self._space_guard = SpaceGuard(self)
        #: The progress dialog of a running animation export (None otherwise).
        self.export_progress: QProgressDialog | None = None
        self.export_actions: list[QAction] = []

    def set_target(self, panel: Panel | None) -> None:
        """Animate ``panel`` (the tab on screen) from now on; a running animation stops."""
        self.animator.set_target(panel)

    # -- menus ----------------------------------------------------------------------------------
    def build_export_menu(self, menu: QMenu) -> None:
        """File ▸ Export animation as GIF… / as PNG sequence… (disabled until panels load)."""
        self.export_gif_action = add_action(
            self, menu, "Export animation as GI&F…", "export_gif_action", None, self.gif_dialog,
            tip="Save one loop of the tab's animation as a looping GIF",
        )  # fmt: skip
        self.export_frames_action = add_action(
            self, menu, "Export animation as PNG seq&uence…", "export_frames_action", None,
            self.frames_dialog,
            tip="Save one loop of the tab's animation as a folder of numbered PNG pictures",
        )  # fmt: skip
        self.export_actions = [self.export_gif_action, self.export_frames_action]

    def build_menu(self, menu: QMenu) -> None:
        """View ▸ Play/Pause animation, Animation faster, Animation slower."""
        a = self.animator
        self.play_action = add_action(
            self, menu, "Play/Pause &animation", "play_action", ["Space"], a.set_playing,
            checkable=True,
            tip="Sweep the tab's main parameter, looping; pausing leaves it where it is",
        )  # fmt: skip
        a.playing_changed.connect(self._sync_play_action)
        self.faster_action = add_action(
            self, menu, "Animation fa&ster", "faster_action", ["]"], a.faster
        )
        self.slower_action = add_action(
            self, menu, "Animation slo&wer", "slower_action", ["["], a.slower
        )

    def _sync_play_action(self, playing: bool) -> None:
        self.play_action.blockSignals(True)
        self.play_action.setChecked(playing)
        self.play_action.blockSignals(False)

    # -- export ---------------------------------------------------------------------------------
    def export(
        self, kind: str, path: str | Path, settings: AnimationSettings | None = None, *,
        overwrite: bool = False, progress: Progress | None = None,
    ) -> Path:  # fmt: skip
        """One loop of the tab's animation as a GIF (``kind="gif"``) or a folder of PNGs
        (``"png"``), written atomically; the tab's values are as before afterwards, also when
        ``progress`` cancels (:class:`ExportCancelledError`) or writing fails."""
        from posenc_gui.widgets import animation, export

        panel = self._parts.current_panel()
        if panel is None:
            raise RuntimeError("the tab is still loading")
        self.animator.pause()
        chosen = settings or AnimationSettings(loop_seconds=self.animator.loop_seconds())
        fig = export.figure_widget(panel)
        if kind == "gif":
            return animation.export_gif(panel, fig, path, chosen, overwrite=overwrite,
                                        progress=progress)  # fmt: skip
        if kind == "png":
            return animation.export_png_sequence(panel, fig, path, chosen, overwrite=overwrite,
                                                 progress=progress)  # fmt: skip
        raise ValueError(f"kind must be 'gif' or 'png', got {kind!r}")

    def settings(self) -> AnimationSettings:
        """The frames and width last chosen (clamped), at the current speed."""
        from posenc_gui.widgets import animation, export

        s = QSettings()
        frames = s.value(ANIMATION_FRAMES_KEY, animation.DEFAULT_FRAMES, type=int)
        width = s.value(ANIMATION_WIDTH_KEY, animation.DEFAULT_EXPORT_WIDTH, type=int)
        frames = frames if isinstance(frames, int) else animation.DEFAULT_FRAMES
        width = width if isinstance(width, int) else animation.DEFAULT_EXPORT_WIDTH
        return AnimationSettings(
            min(max(frames, animation.MIN_FRAMES), animation.MAX_FRAMES),
            min(max(width, export.MIN_PNG_WIDTH), export.MAX_PNG_WIDTH),
            self.animator.loop_seconds(),
        )

    def gif_dialog(self) -> None:
        """File ▸ Export animation as GIF…"""
        self.export_dialog("gif")

    def frames_dialog(self) -> None:
        """File ▸ Export animation as PNG sequence…"""
        self.export_dialog("png")

    def export_dialog(self, kind: str) -> None:
        """Frames and width, a file or a folder, then a progress dialog that can cancel."""
        from posenc_gui.state.animation import Sweep

        panel = self._parts.current_panel()
        if panel is None:
            return
        self.animator.pause()
        gif = kind == "gif"
        title = "Export animation as GIF" if gif else "Export animation as PNG sequence"
        model = panel.state.model
        values = model.resolve(dict(model.animation_setup), panel.state.values())
        what = Sweep.of(model, values).describe()
        parent = self._parts.dialog_parent()
        dialog = AnimationExportDialog(title, what, self.settings(), gif=gif, parent=parent)
        if not dialog.exec():
            return
        chosen = dialog.settings()
        QSettings().setValue(ANIMATION_FRAMES_KEY, chosen.frames)
        QSettings().setValue(ANIMATION_WIDTH_KEY, chosen.width)
        if gif:
            path = ask_save_path(parent, title, f"{model.id}.gif", "GIF animations (*.gif)", "gif")
        else:
            path = ask_save_path(parent, title, f"{model.id}-frames", "Folders of frames (*)", "")
        if path is None:
            return
        overwrite = gif  # the file dialog asked before replacing a file
        if not gif and path.exists():
            answer = QMessageBox.question(
                parent, title,
                f"“{path.name}” exists already. Replace the frames in it? (A folder that holds "
                "anything else is never replaced.)",
            )  # fmt: skip
            if answer != QMessageBox.StandardButton.Yes:
                return
            overwrite = True
        self.run_export(kind, path, chosen, overwrite=overwrite)

    def run_export(
        self, kind: str, path: Path, settings: AnimationSettings, *, overwrite: bool = False
    ) -> Path | None:
        """:meth:`export` behind a window-modal progress dialog with Cancel; failures and
        cancelling are reported, never raised."""
        dialog = QProgressDialog("Rendering…", "Cancel", 0, 1, self._parts.dialog_parent())
        dialog.setObjectName("animation_progress")
        dialog.setWindowTitle("Exporting animation")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        self.export_progress = dialog

        def progress(done: int, total: int, text: str) -> bool:
            dialog.setMaximum(total)
            dialog.setLabelText(text)
            dialog.setValue(done)
            return not dialog.wasCanceled()

        messages = self._parts.messages
        try:
            out = self.export(kind, path, settings, overwrite=overwrite, progress=progress)
        except ExportCancelledError:
            messages.show("Animation export cancelled: nothing was written")
            return None
        except (OSError, RuntimeError, ValueError) as err:
            messages.error("Export failed", f"Could not save the animation to {path}.",
                           reason(err))  # fmt: skip
            return None
        finally:
            self.export_progress = None
            dialog.close()
            dialog.deleteLater()
        messages.show(f"Saved {out} ({settings.frames} frames)")
        return out
