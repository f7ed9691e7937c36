"""Command line: ``posenc-gui [gui] | render | values | params``.

    posenc-gui [--tab ID] [--set NAME=VALUE]...              open the window
    posenc-gui render --tab ID [--set ...] --out F.png [--size WxH]   picture, no display needed
    posenc-gui values --tab ID [--set ...]                   JSON: parameters + every number shown
    posenc-gui params [--tab ID]                             JSON: the parameters and their ranges

Everything is validated before anything happens: a bad tab, parameter, type or range exits with
status 2 and one line that names the culprit and what it accepts; nothing is written.
``params`` and ``values`` import no Qt.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from posenc_gui import __version__

COMMANDS = ("gui", "render", "values", "params")
DEFAULT_SIZE = (1600, 1000)
MIN_SIZE, MAX_SIZE = 320, 8192


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser(command: str) -> argparse.ArgumentParser:
    prog = "posenc-gui" if command == "gui" else f"posenc-gui {command}"
    descriptions = {
        "gui": "Open the PosEnc Explorer window. Subcommands: render, values, params "
        "(see posenc-gui SUBCOMMAND --help).",
        "render": "Render one tab to a PNG file without showing a window.",
        "values": "Print one JSON object: the validated parameters and every number the tab shows.",
        "params": "Print JSON describing each parameter: type, default, range or choices.",
    }
    p = _Parser(prog=prog, description=descriptions[command])
    if command == "gui":
        p.add_argument("--version", action="version", version=f"posenc-gui {__version__}")
    tab_required = command in ("render", "values")
    if command != "params":
        p.add_argument("--tab", required=tab_required, metavar="ID", help="tab id (sine, ...)")
        p.add_argument(
            "--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
            help="set a parameter (repeatable); see 'posenc-gui params --tab ID'",
        )  # fmt: skip
    else:
        p.add_argument("--tab", metavar="ID", help="only this tab")
    if command == "render":
        p.add_argument("--out", required=True, metavar="FILE.png", help="PNG file to write")
        p.add_argument("--size", default=None, metavar="WxH", help="picture size in pixels")
    return p


def parse_size(text: str | None) -> tuple[int, int]:
    """``"1600x1000"`` -> (1600, 1000); :class:`UsageError` naming --size otherwise."""
    if text is None:
        return DEFAULT_SIZE
    w, sep, h = text.lower().partition("x")
    try:
        width, height = int(w), int(h)
    except ValueError:
        width = height = -1
    if not sep or not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise UsageError(
            f"--size must be WxH with each side an integer from {MIN_SIZE} to {MAX_SIZE}, "
            f"got {text!r}"
        )
    return width, height


def check_out(text: str) -> Path:
    """The output file: must end in .png and be in an existing, writable folder."""
    path = Path(text).expanduser()
    if path.suffix.lower() != ".png":
        raise UsageError(f"--out must be a .png file, got {text!r}")
    if not path.parent.resolve().is_dir():
        raise UsageError(f"--out folder does not exist: {str(path.parent)!r}")
    if path.is_dir():
        raise UsageError(f"--out is a folder, not a file: {text!r}")
    return path


def json_ready(obj: Any) -> Any:
    """Replace non-finite floats (not valid JSON) by the strings "inf", "-inf", "nan"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_ready(v) for v in obj]
    return obj


def _describe_tab(tab_id: str) -> dict[str, Any]:
    from posenc_gui.state.registry import get_model

    model = get_model(tab_id)
    return {
        "tab": model.id,
        "title": model.title,
        "description": model.summary,
        "params": {p.name: p.describe() for p in model.params},
    }


def run(argv: Sequence[str]) -> int:
    """Parse and execute; raises :class:`UsageError` / ``ParamError`` for bad input."""
    args = list(argv)
    command = args[0] if args and args[0] in COMMANDS else "gui"
    if args and args[0] in COMMANDS:
        args = args[1:]
    ns = _parser(command).parse_args(args)

    if command == "params":
        from posenc_gui.state.registry import TAB_IDS, get_model

        if ns.tab is not None:
            get_model(ns.tab)
            out: Any = _describe_tab(ns.tab)
        else:
            out = {"tabs": [_describe_tab(t) for t in TAB_IDS]}
        print(json.dumps(json_ready(out), indent=2, ensure_ascii=False))
        return 0

    from posenc_gui.state.registry import TAB_IDS, get_model

    tab = ns.tab
    values = None
    if tab is not None:
        values = get_model(tab).parse_assignments(ns.assignments)
    elif ns.assignments:
        raise UsageError(f"--set needs --tab; tabs: {', '.join(TAB_IDS)}")

    if command == "values":
        assert tab is not None and values is not None
        model = get_model(tab)
        result = {"tab": tab, "params": values, **model.readouts(values)}
        print(json.dumps(json_ready(result), ensure_ascii=False))
        return 0

    if command == "render":
        assert tab is not None and values is not None
        size = parse_size(ns.size)
        out_path = check_out(ns.out)
        from posenc_gui.app import render_png

        render_png(tab, values, out_path, size)
        print(f"wrote {out_path} ({size[0]}x{size[1]})")
        return 0

    from posenc_gui.app import run_gui

    return run_gui(tab, values)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point: returns the exit status (2 for bad input, one line on stderr)."""
    from posenc_gui.state.params import ParamError

    try:
        return run(sys.argv[1:] if argv is None else argv)
    except (UsageError, ParamError) as err:
        print(f"posenc-gui: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"posenc-gui: error: {err}", file=sys.stderr)
        return 1
