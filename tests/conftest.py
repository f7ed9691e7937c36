"""Test set-up: offscreen Qt, settings in a temporary folder, one configured QApplication."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before any Qt import
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@pytest.fixture(scope="session")
def qapp_cls() -> type:
    from PySide6.QtWidgets import QApplication

    return QApplication


@pytest.fixture(scope="session")
def qapp(qapp_args: list[str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app configured as ``posenc-gui`` configures it, with QSettings in a temp dir."""
    from PySide6.QtCore import QSettings

    settings_dir = tmp_path_factory.mktemp("settings")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(settings_dir))
    from posenc_gui.app import create_application

    app = create_application([sys.argv[0], *qapp_args])
    import torch

    torch.set_num_threads(1)
    yield app
