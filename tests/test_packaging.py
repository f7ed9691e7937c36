"""Packaging: the package data, the desktop entry, AppStream metainfo and icons, the desktop
install for the current user (into a temporary XDG_DATA_HOME), the app id in code.

The bundle and the wheel themselves are built by `python3 dev.py package [--wheel]`, not here
(minutes of CPU); these tests check what those builds rely on.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "posenc_gui"
RESOURCES = PACKAGE / "resources"
LINUX = ROOT / "packaging" / "linux"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dev() -> ModuleType:
    return _load("posenc_dev_script_packaging", ROOT / "dev.py")


@pytest.fixture(scope="module")
def icons() -> ModuleType:
    return _load("posenc_render_icons", ROOT / "packaging" / "render_icons.py")


def _app_id() -> str:
    from posenc_gui.app import APP_ID

    return APP_ID


# -- package data ---------------------------------------------------------------------------------


def _package_data_globs() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs: list[str] = config["tool"]["setuptools"]["package-data"]["posenc_gui"]
    return globs


def _matched(package_dir: Path, patterns: list[str]) -> set[Path]:
    """Files setuptools takes as package data: its globs, relative to the package, recursive."""
    found: set[Path] = set()
    for pattern in patterns:
        for name in glob.glob(str(package_dir / pattern), recursive=True):
            if os.path.isfile(name):
                found.add(Path(name).resolve())
    return found


def test_every_resource_file_is_package_data() -> None:
    files = {p.resolve() for p in RESOURCES.rglob("*") if p.is_file()}
    assert files, "no resources found"
    unmatched = files - _matched(PACKAGE, _package_data_globs())
    assert not unmatched, f"not in the wheel: {sorted(map(str, unmatched))}"
    # The kinds the app loads at run time are all there.
    kinds = {p.relative_to(RESOURCES).parts[0] for p in files}
    assert {"fonts", "decks", "models", "icons", "icon.svg"} <= kinds


def test_new_decks_models_and_icons_are_package_data_without_an_edit(tmp_path: Path) -> None:
    new = [
        "resources/decks/07-precision.json",
        "resources/models/some-model.json",
        "resources/icons/hicolor/1024x1024/apps/x.png",
    ]
    for name in new:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    matched = _matched(tmp_path, _package_data_globs())
    assert matched == {(tmp_path / n).resolve() for n in new}


def test_dev_lists_the_resources_as_the_wheel_holds_them(dev: Any) -> None:
    names = dev.resource_files()
    assert "posenc_gui/resources/icon.svg" in names
    assert all(n.startswith("posenc_gui/resources/") for n in names)
    assert len(names) == sum(1 for p in RESOURCES.rglob("*") if p.is_file())


def test_bundle_spec_collects_the_resources_and_the_tabs() -> None:
    spec = (ROOT / "packaging" / "posenc-gui.spec").read_text()
    # Package data and the tab modules imported by name (registry) are collected explicitly.
    assert 'collect_data_files("posenc_gui", subdir="resources")' in spec
    assert 'collect_submodules("posenc_gui"' in spec
    assert "torch_shm_manager" in spec  # `import torch` fails without it


# -- app id, desktop entry, metainfo ---------------------------------------------------------------


def test_one_app_id_everywhere(dev: Any, icons: Any) -> None:
    app_id = _app_id()
    assert app_id == dev.APP_ID == icons.APP_ID
    assert f'APP_ID = "{app_id}"' in (ROOT / "packaging" / "posenc-gui.spec").read_text()
    desktop = (LINUX / f"{app_id}.desktop").read_text()
    assert f"\nIcon={app_id}\n" in desktop
    meta = ET.parse(LINUX / f"{app_id}.metainfo.xml").getroot()
    assert meta.findtext("id") == app_id
    assert meta.findtext("launchable") == f"{app_id}.desktop"
    assert sorted(p.name for p in LINUX.iterdir()) == [
        f"{app_id}.desktop",
        f"{app_id}.metainfo.xml",
    ]


def test_desktop_entry_starts_the_command_and_names_the_app() -> None:
    from posenc_gui import APP_NAME

    entry = dict(
        line.split("=", 1)
        for line in (LINUX / f"{_app_id()}.desktop").read_text().splitlines()
        if "=" in line
    )
    assert entry["Exec"] == "posenc-gui"  # the installer writes the absolute path
    assert entry["Name"] == APP_NAME
    assert entry["Type"] == "Application"
    meta = ET.parse(LINUX / f"{_app_id()}.metainfo.xml").getroot()
    assert meta.findtext("name") == APP_NAME
    assert meta.findtext("provides/binary") == "posenc-gui"


def test_metainfo_release_is_the_package_version() -> None:
    from posenc_gui import __version__

    meta = ET.parse(LINUX / f"{_app_id()}.metainfo.xml").getroot()
    versions = [r.get("version") for r in meta.iter("release")]
    assert versions and versions[0] == __version__


def _validator(name: str) -> str:
    tool = shutil.which(name)
    if tool is None:
        package = {"desktop-file-validate": "desktop-file-utils", "appstreamcli": "appstream"}
        pytest.skip(f"{name} is not installed (Debian/Ubuntu: apt-get install {package[name]})")
    return tool


def test_desktop_entry_passes_desktop_file_validate() -> None:
    tool = _validator("desktop-file-validate")
    result = subprocess.run(
        [tool, str(LINUX / f"{_app_id()}.desktop")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower(), result.stdout


def test_metainfo_passes_appstreamcli_validate() -> None:
    tool = _validator("appstreamcli")
    result = subprocess.run(
        [tool, "validate", "--no-net", str(LINUX / f"{_app_id()}.metainfo.xml")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- icons ----------------------------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_hicolor_icons_exist_at_every_size(icons: Any) -> None:
    hicolor = RESOURCES / "icons" / "hicolor"
    assert set(icons.SIZES) >= {16, 24, 32, 48, 64, 128, 256, 512}
    for size in icons.SIZES:
        png = hicolor / f"{size}x{size}" / "apps" / f"{_app_id()}.png"
        assert _png_size(png) == (size, size)
    scalable = hicolor / "scalable" / "apps" / f"{_app_id()}.svg"
    assert scalable.read_bytes() == (RESOURCES / "icon.svg").read_bytes(), (
        "icon.svg changed: run packaging/render_icons.py"
    )


def test_icon_svg_is_a_square_app_icon() -> None:
    root = ET.parse(RESOURCES / "icon.svg").getroot()
    assert root.get("viewBox") == "0 0 256 256"
    assert root.get("width") == root.get("height")


def test_icon_script_renders_what_is_committed(icons: Any, tmp_path: Path, qapp: Any) -> None:
    written = icons.render((16, 48), tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        f"16x16/apps/{_app_id()}.png",
        f"48x48/apps/{_app_id()}.png",
        f"scalable/apps/{_app_id()}.svg",
    ]
    from PySide6.QtGui import QImage

    for size in (16, 48):
        fresh = QImage(str(written[0 if size == 16 else 1]))
        committed = QImage(
            str(RESOURCES / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{_app_id()}.png")
        )
        assert fresh.size() == committed.size()
        # Opaque pixels where the icon is (not an empty or transparent picture).
        centre = fresh.pixelColor(size // 2, size // 2)
        assert centre.alpha() == 255


def test_application_sets_the_app_id_and_the_icon(qapp: Any) -> None:
    from posenc_gui.app import app_icon, create_application

    app = create_application()
    assert app.desktopFileName() == _app_id()
    sizes = {(s.width(), s.height()) for s in app_icon().availableSizes()}
    assert {(16, 16), (48, 48), (512, 512)} <= sizes
    assert not app.windowIcon().isNull()


# -- desktop install for the current user ---------------------------------------------------------


def _dev_package(args: list[str], data_home: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "XDG_DATA_HOME": str(data_home), "HOME": str(home)}
    return subprocess.run(
        [sys.executable, str(ROOT / "dev.py"), "package", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="XDG desktop integration is for Linux")
def test_install_and_uninstall_desktop_into_xdg_data_home(tmp_path: Path) -> None:
    data_home, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    executable = tmp_path / "my apps" / "posenc-gui"
    executable.parent.mkdir()
    executable.write_text("#!/bin/sh\n")
    app_id = _app_id()
    installed = _dev_package(["--install-desktop", "--exec", str(executable)], data_home, home)
    assert installed.returncode == 0, installed.stderr
    desktop = data_home / "applications" / f"{app_id}.desktop"
    expected = [
        desktop,
        data_home / "metainfo" / f"{app_id}.metainfo.xml",
        data_home / "icons" / "hicolor" / "scalable" / "apps" / f"{app_id}.svg",
        data_home / "icons" / "hicolor" / "16x16" / "apps" / f"{app_id}.png",
        data_home / "icons" / "hicolor" / "512x512" / "apps" / f"{app_id}.png",
    ]
    for path in expected:
        assert path.is_file(), path
    assert f'\nExec="{executable}"\n' in desktop.read_text()
    assert list(home.iterdir()) == [], "wrote outside XDG_DATA_HOME"
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True)
        assert check.returncode == 0, check.stdout
    removed = _dev_package(["--uninstall-desktop"], data_home, home)
    assert removed.returncode == 0, removed.stderr
    left = [p for p in data_home.rglob("*") if p.is_file() and app_id in p.name]
    assert left == []
