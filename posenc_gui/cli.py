"""Command line: ``posenc-gui [gui] | render | values | params | session``.

    posenc-gui [--session F | --fresh] [--tab ID] [--set NAME=VALUE]... [--present]  the window
    posenc-gui [--session F | --fresh] --deck F [--step N]      open the window on a lesson deck
    posenc-gui render [--session F] [--tab ID] [--set ...] [--figure ID] --out F.png|F.svg
                      [--size WxH]             the tab, or one figure, exactly WxH
    posenc-gui values [--session F] [--tab ID] [--config F] [--set ...] [--no-series]
                      JSON: parameters, read-outs and every array shown
    posenc-gui params [--tab ID]                             JSON: parameters, ranges, figure ids
    posenc-gui code [--session F] [--tab ID] [--set ...] [--plain]   a PyTorch snippet of the tab
    posenc-gui session [--session F] [--tab ID] [--set ...] [--theme T] [--scale S]
                       [--colormaps M] --out F.json

The window restores the session of the last run (``--fresh``: the defaults; ``--session F``:
that file); ``--tab``/``--set`` apply on top. ``render`` and ``values`` read the tab (the
session's current tab unless ``--tab``) and its values from ``--session`` with ``--set`` on top;
``render`` also takes the session's theme, scale and zoom; it writes PNG or SVG by the suffix of
``--out``, exactly ``--size`` pixels: the whole tab, or with ``--figure ID`` (see ``params``) that
figure alone, laid out at that size. ``session`` writes a session file
without opening a window.

Everything is validated before anything happens: a bad tab, parameter, type or range, or a
session file that cannot be used, exits with status 2 and one line that names the culprit and
what it accepts; nothing is written. ``params``, ``values --no-series`` and ``session``
import no Qt; ``values`` builds the tab offscreen, as ``render`` does, for its arrays
(under ``"series"``: the arrays the CSV export writes).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from posenc_gui import __version__

if TYPE_CHECKING:
    from posenc_gui.state.deck import Deck
    from posenc_gui.state.params import Value
    from posenc_gui.state.session import Session

COMMANDS = ("gui", "render", "values", "params", "session", "code")
DEFAULT_SIZE = (1600, 1000)


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser(command: str) -> argparse.ArgumentParser:
    prog = "posenc-gui" if command == "gui" else f"posenc-gui {command}"
    descriptions = {
        "gui": "Open the PosEnc Explorer window. Subcommands: render, values, params, "
        "session, code "
        "(see posenc-gui SUBCOMMAND --help).",
        "render": "Render one tab, or one of its figures, to a PNG or SVG file of exactly "
        "--size pixels without showing a window.",
        "values": "Print one JSON object: the validated parameters, the read-outs and every "
        'array the tab shows (under "series", as the CSV export writes them).',
        "params": "Print JSON describing each parameter (type, default, range or choices), "
        "the tab's short name and the ids of its figures.",
        "session": "Write a session file (open it with 'posenc-gui --session FILE') without "
        "opening a window.",
        "code": "Print a short, runnable PyTorch snippet that recomputes what the tab shows "
        "with these parameters (View ▸ Show the code).",
    }
    p = _Parser(prog=prog, description=descriptions[command])
    if command == "gui":
        p.add_argument("--version", action="version", version=f"posenc-gui {__version__}")
    if command != "params":
        p.add_argument(
            "--session", metavar="FILE",
            help="start from this session file (written by File ▸ Save session or 'session')",
        )  # fmt: skip
        p.add_argument("--tab", metavar="ID", help="tab id (sine, ...)")
        p.add_argument(
            "--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
            help="set a parameter (repeatable); see 'posenc-gui params --tab ID'",
        )  # fmt: skip
    else:
        p.add_argument("--tab", metavar="ID", help="only this tab")
    if command in ("gui", "render", "values", "code"):
        p.add_argument(
            "--config", metavar="FILE",
            help="a model's config.json (Hugging Face style): the long-context tab with its "
            "RoPE settings (--set applies on top)",
        )  # fmt: skip
    if command == "gui":
        p.add_argument(
            "--fresh", action="store_true",
            help="start from the defaults, not from the session of the last run",
        )  # fmt: skip
        p.add_argument(
            "--deck", metavar="FILE",
            help="open this lesson deck (File ▸ Save deck, or a bundled one) at its first step",
        )  # fmt: skip
        p.add_argument("--step", metavar="N", help="with --deck: start at step N (from 1)")
        p.add_argument(
            "--present", action="store_true",
            help="start in presentation mode (larger text and lines, controls hidden; F5 or "
            "Esc leaves it)",
        )  # fmt: skip
    if command == "values":
        p.add_argument(
            "--no-series", action="store_true",
            help="only the parameters and read-outs, not every array the tab shows (fast: "
            "builds no tab offscreen)",
        )  # fmt: skip
    if command == "code":
        p.add_argument(
            "--plain", action="store_true",
            help="plain PyTorch only (no posenc_gui import) instead of the posenc_gui.core version",
        )  # fmt: skip
    if command == "render":
        p.add_argument(
            "--out", required=True, metavar="FILE.png|FILE.svg",
            help="file to write: PNG or SVG by its suffix",
        )  # fmt: skip
        p.add_argument(
            "--size", default=None, metavar="WxH",
            help=f"picture size in pixels (default {DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}; slides: "
            "1920x1080, 1280x720)",
        )  # fmt: skip
        p.add_argument(
            "--figure", metavar="ID",
            help="only this figure, filling the picture (ids: 'posenc-gui params --tab ID')",
        )  # fmt: skip
    if command == "session":
        p.add_argument("--out", required=True, metavar="FILE", help="session file to write")
        p.add_argument("--theme", choices=("light", "dark"), help="theme (default: light)")
        p.add_argument("--scale", metavar="S", help="scale of text and lines (default: 1)")
        p.add_argument(
            "--colormaps", choices=session_colormaps(),
            help="colour-map set of the heatmaps (default: colorblind)",
        )  # fmt: skip
    return p


def session_colormaps() -> tuple[str, ...]:
    """Ids of the bundled colour-map sets (from the Qt-free session module)."""
    from posenc_gui.state.session import COLORMAP_SETS

    return COLORMAP_SETS


def parse_size(text: str | None) -> tuple[int, int]:
    """``"1600x1000"`` -> (1600, 1000), read as the export dialog reads a size
    (:func:`posenc_gui.widgets.export.parse_size`); :class:`UsageError` naming --size otherwise
    (also for a picture over the cap, :data:`posenc_gui.widgets.export.MAX_PICTURE_PIXELS`)."""
    if text is None:
        return DEFAULT_SIZE
    from posenc_gui.widgets.export import MAX_SIDE, MIN_SIDE, PictureTooLargeError
    from posenc_gui.widgets.export import parse_size as read_size

    try:
        return read_size(text)
    except PictureTooLargeError as err:
        raise UsageError(f"--size {text!r}: {err}") from None
    except ValueError:
        raise UsageError(
            f"--size must be WxH with each side an integer from {MIN_SIDE} to {MAX_SIDE}, "
            f"got {text!r}"
        ) from None


#: Suffixes ``render --out`` writes (case-insensitive).
RENDER_SUFFIXES = (".png", ".svg")


def check_out(text: str) -> Path:
    """The output file: must end in .png or .svg, be in an existing folder, and be a new path or
    a regular file (a folder, a named pipe or a device is refused)."""
    import stat

    from posenc_gui.state.jsonfile import file_kind

    path = Path(text).expanduser()
    if path.suffix.lower() not in RENDER_SUFFIXES:
        raise UsageError(
            f"--out must end in {' or '.join(RENDER_SUFFIXES)} (PNG picture or SVG drawing), "
            f"got {text!r}"
        )
    if not path.parent.resolve().is_dir():
        raise UsageError(f"--out folder does not exist: {str(path.parent)!r}")
    try:
        mode = path.stat().st_mode  # (through a symlink: its target is written)
    except FileNotFoundError:
        return path
    except OSError as err:
        raise UsageError(f"--out {text!r}: cannot use it ({err.strerror or err})") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"--out is a folder, not a file: {text!r}")
    if not stat.S_ISREG(mode):
        raise UsageError(f"--out {text!r} is not a regular file ({file_kind(mode)}); not written")
    return path


def check_session_out(text: str) -> Path:
    """The session file to write: in an existing folder, not a folder itself."""
    path = Path(text).expanduser()
    if not path.parent.resolve().is_dir():
        raise UsageError(f"--out folder does not exist: {str(path.parent)!r}")
    if path.is_dir():
        raise UsageError(f"--out is a folder, not a file: {text!r}")
    return path


def load_session(text: str) -> Session:
    """Read and validate ``--session FILE``; :class:`UsageError` saying what is wrong."""
    from posenc_gui.state.session import Session, SessionError

    try:
        return Session.load(Path(text).expanduser())
    except SessionError as err:
        raise UsageError(f"--session {text!r}: {err}") from None
    except OSError as err:
        raise UsageError(f"--session {text!r}: cannot read it ({err.strerror or err})") from None


def load_deck(
    text: str | None, step: str | None, tab: str | None, assignments: Sequence[str]
) -> tuple[Deck, int] | None:
    """``--deck FILE [--step N]`` read and validated: the deck and the step (from 1)."""
    if text is None:
        if step is not None:
            raise UsageError("--step needs --deck FILE")
        return None
    if tab is not None or assignments:
        raise UsageError("--deck cannot be used with --tab or --set: each step sets its tab")
    from posenc_gui.state.deck import Deck, DeckError

    try:
        deck = Deck.load(Path(text).expanduser())
    except DeckError as err:
        raise UsageError(f"--deck {text!r}: {err}") from None
    except OSError as err:
        raise UsageError(f"--deck {text!r}: cannot read it ({err.strerror or err})") from None
    number = 1
    if step is not None:
        try:
            number = int(step)
        except ValueError:
            number = 0
        if not 1 <= number <= len(deck):
            raise UsageError(f"--step must be an integer from 1 to {len(deck)}, got {step!r}")
    return deck, number


def parse_given(tab: str, assignments: Sequence[str]) -> dict[str, Value]:
    """``["NAME=VALUE", ...]`` parsed (types checked), not yet resolved against a base."""
    from posenc_gui.state.params import ParamError
    from posenc_gui.state.registry import get_model

    model = get_model(tab)
    given: dict[str, Value] = {}
    for item in assignments:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise ParamError(f"--set expects NAME=VALUE, got {item!r}")
        p = model.param(name.strip())
        given[p.name] = p.parse(text)
    return given


def parse_scale(text: str | None) -> float | None:
    """``--scale``: a number in the session's range."""
    if text is None:
        return None
    from posenc_gui.state.params import number_text, read_number
    from posenc_gui.state.session import SCALE_RANGE

    lo, hi = SCALE_RANGE
    try:
        number = read_number(number_text(text))
    except ValueError:
        number = math.nan
    value = float(number) if isinstance(number, int | float) else math.nan
    if not (math.isfinite(value) and lo <= value <= hi):
        raise UsageError(f"--scale must be a number from {lo} to {hi}, got {text!r}")
    return value


def json_ready(obj: Any, reasons: Mapping[str, str] | None = None) -> Any:
    """Strict JSON data: a non-finite float is ``null`` with a sibling ``"<name>_undefined"``
    reason (:func:`posenc_gui.state.model.json_values`, the app's one convention)."""
    from posenc_gui.state.model import json_values

    return json_values(obj, reasons)


def _describe_tab(tab_id: str) -> dict[str, Any]:
    from posenc_gui.state.registry import get_model

    model = get_model(tab_id)
    out: dict[str, Any] = {
        "tab": model.id,
        "title": model.title,
        "short_title": model.short_title,
        "description": model.summary,
        "params": {p.name: p.describe() for p in model.params},
        "figures": list(model.figures),
    }
    if tab_id == "context":  # the bundled model configs its preset chooses from
        from posenc_gui.state.model_config import presets

        out["presets"] = [{"id": p.id, "title": p.title, "source": p.source} for p in presets()]
    return out


class Target(NamedTuple):
    """What ``--session``, ``--tab`` and ``--set`` select: the session read (or ``None``), the
    tab (or ``None``), the values given with ``--set`` and those values resolved against the
    session's (``None`` without a tab)."""

    session: Session | None
    tab: str | None
    given: dict[str, Value]
    values: dict[str, Value] | None


def resolve_target(ns: argparse.Namespace, *, tab_required: bool = False) -> Target:
    """Read ``--session``, pick the tab (``--tab``, else the session's), parse ``--set`` and
    resolve it on top of the session's values; :class:`UsageError` / ``ParamError`` otherwise."""
    from posenc_gui.state.registry import TAB_IDS, get_model

    session = load_session(ns.session) if ns.session else None
    config = config_values(ns)
    if config is not None:
        if ns.tab not in (None, "context"):
            raise UsageError(f"--config is read by the context tab, not by --tab {ns.tab}")
        ns.tab = "context"
    tab = ns.tab if ns.tab is not None else (session.current_tab if session else None)
    if tab is None:
        if tab_required:
            raise UsageError(f"--tab is required (or --session FILE); tabs: {', '.join(TAB_IDS)}")
        if ns.assignments:
            raise UsageError(f"--set needs --tab; tabs: {', '.join(TAB_IDS)}")
        return Target(session, None, {}, None)
    given = {**(config or {}), **parse_given(tab, ns.assignments)}
    base = session.state(tab).values() if session is not None else None
    return Target(session, tab, given, get_model(tab).resolve(given, base))


def config_values(ns: argparse.Namespace) -> dict[str, Value] | None:
    """The context tab's values for ``--config FILE`` (``None`` without it); a malformed or
    unsupported config is a :class:`UsageError` naming the field."""
    path = getattr(ns, "config", None)
    if path is None:
        return None
    from posenc_gui.state.context import read_config_values
    from posenc_gui.state.model_config import ConfigError

    try:
        return read_config_values(path)
    except ConfigError as err:
        raise UsageError(str(err)) from None


def _tab_and_values(target: Target) -> tuple[str, dict[str, Value]]:
    assert target.tab is not None and target.values is not None  # tab_required=True
    return target.tab, target.values


def run_params(ns: argparse.Namespace) -> int:
    """``params``: JSON describing each parameter and figure of one tab (``--tab``) or of all."""
    from posenc_gui.state.registry import TAB_IDS, get_model

    if ns.tab is not None:
        get_model(ns.tab)
        out: Any = _describe_tab(ns.tab)
    else:
        out = {"tabs": [_describe_tab(t) for t in TAB_IDS]}
    print(json.dumps(json_ready(out), indent=2, ensure_ascii=False))
    return 0


def run_values(ns: argparse.Namespace) -> int:
    """``values``: one JSON object, the parameters, the read-outs and (unless ``--no-series``)
    under ``"series"`` every array the tab shows, the arrays its CSV export writes."""
    from posenc_gui.state.registry import get_model

    target = resolve_target(ns, tab_required=True)
    tab, values = _tab_and_values(target)
    model = get_model(tab)
    result = json_ready({"tab": tab, "params": values, **model.readouts(values)}, model.undefined)
    if not ns.no_series:
        assert "series" not in result  # no read-out is named so
        view = target.session.view_states.get(tab) if target.session is not None else None
        result["series"] = tab_series(tab, values, view_state=view)
    print(json.dumps(result, ensure_ascii=False, allow_nan=False))
    return 0


def tab_series(
    tab: str,
    values: Mapping[str, Value],
    size: tuple[int, int] = DEFAULT_SIZE,
    *,
    view_state: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Every array tab ``tab`` shows with ``values`` (laid out at ``size``, zoomed as
    ``view_state``): its panel built offscreen, as ``render`` builds it, and its ``data()``
    (what the CSV export writes) as strict JSON (:func:`posenc_gui.state.series.series_json`)."""
    from posenc_gui.app import offscreen_application

    offscreen_application()
    from posenc_gui.panels import get_panel
    from posenc_gui.state.series import series_json
    from posenc_gui.widgets import export

    cls = get_panel(tab)
    with export.staged(cls, values, size, view_state=view_state) as (panel, _):
        return series_json(panel.data(), cls.model.undefined)


def run_code(ns: argparse.Namespace) -> int:
    """``code``: a runnable PyTorch snippet of the tab with these values."""
    from posenc_gui.state.snippets import snippet

    tab, values = _tab_and_values(resolve_target(ns, tab_required=True))
    try:
        sys.stdout.write(snippet(tab, values).source(plain=ns.plain))
    except LookupError as err:
        raise UsageError(str(err)) from None
    return 0


def run_session(ns: argparse.Namespace) -> int:
    """``session``: write a session file (the values, theme, scale, colour maps given)."""
    from posenc_gui.state.registry import TAB_IDS
    from posenc_gui.state.session import Session

    target = resolve_target(ns)
    out_file = check_session_out(ns.out)
    scale = parse_scale(ns.scale)
    written = target.session or Session(target.tab or TAB_IDS[0])
    if target.tab is not None and target.values is not None:
        written.current_tab = target.tab
        written.state(target.tab).update(target.values)
    written.theme = ns.theme or written.theme
    written.scale = scale if scale is not None else written.scale
    written.colormaps = ns.colormaps or written.colormaps
    written.save(out_file)
    print(f"wrote {out_file} (tab {written.current_tab})")
    return 0


def check_figure(tab: str, figure: str | None) -> str | None:
    """``--figure``: one of the tab's figure ids (:class:`UsageError` listing them)."""
    if figure is None:
        return None
    from posenc_gui.state.registry import get_model

    figures = get_model(tab).figures
    if figure not in figures:
        raise UsageError(
            f"--figure {figure!r}: tab {tab!r} has no such figure; figures: {', '.join(figures)}"
        )
    return figure


def run_render(ns: argparse.Namespace) -> int:
    """``render``: the tab, or one figure, as a PNG or SVG file of exactly ``--size``, in the
    session's look and zoom when one is given."""
    target = resolve_target(ns, tab_required=True)
    tab, values = _tab_and_values(target)
    size = parse_size(ns.size)
    out_path = check_out(ns.out)
    figure = check_figure(tab, ns.figure)
    session = target.session
    style = view = None
    if session is not None:
        from posenc_gui.widgets.style import Style

        style = Style(
            scale=session.scale,
            theme=session.theme,  # type: ignore[arg-type]
            colormaps=session.colormaps,
        )
        view = session.view_states.get(tab)
    render_file(tab, values, out_path, size, figure, style=style, view_state=view)
    what = f"figure {figure} of tab {tab}" if figure else f"tab {tab}"
    print(f"wrote {out_path} ({size[0]}x{size[1]}, {what})")
    return 0


def render_file(
    tab: str, values: dict[str, Value], out: Path, size: tuple[int, int], figure: str | None,
    *, style: Any = None, view_state: Any = None,
) -> None:  # fmt: skip
    """Write ``figure`` of ``tab`` (``None``: the whole tab) laid out at exactly ``size`` as PNG
    or SVG (by ``out``'s suffix), without showing a window; the file is made in memory, then
    written by :func:`~posenc_gui.state.jsonfile.write_atomic` (verified, the mode kept)."""
    from posenc_gui.app import offscreen_application

    offscreen_application()
    from posenc_gui import APP_NAME
    from posenc_gui.panels import get_panel
    from posenc_gui.widgets import export
    from posenc_gui.widgets.style import hub

    styles = hub()
    previous = styles.style
    if style is not None:
        styles.set_style(style)
    try:
        cls = get_panel(tab)
        with export.staged(cls, values, size, figure=figure, view_state=view_state) as (_, w):
            if out.suffix.lower() == ".svg":
                title = f"{APP_NAME}: {cls.model.title}" + (f" — {figure}" if figure else "")
                export.write_svg(w, out, title=title, overwrite=True)
            else:
                export.write_png(w, out, size[0], overwrite=True)
    finally:
        styles.set_style(previous)


def run_window(ns: argparse.Namespace) -> int:
    """The window (no subcommand), on a session, a tab and values, or a lesson deck."""
    if ns.fresh and ns.session:
        raise UsageError("--fresh and --session cannot be used together")
    deck = load_deck(ns.deck, ns.step, ns.tab, ns.assignments)
    target = resolve_target(ns)
    from posenc_gui.app import run_gui

    if deck is not None:
        return run_gui(session=target.session, fresh=ns.fresh, deck=deck, present=ns.present)
    # only the values given: the window applies them on top of the session it restores
    return run_gui(
        target.tab, target.given if target.tab is not None else None, session=target.session,
        fresh=ns.fresh, present=ns.present,
    )  # fmt: skip


#: What each command runs, given its parsed arguments.
RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "gui": run_window,
    "render": run_render,
    "values": run_values,
    "params": run_params,
    "session": run_session,
    "code": run_code,
}


def run(argv: Sequence[str]) -> int:
    """Parse and execute; raises :class:`UsageError` / ``ParamError`` for bad input."""
    args = list(argv)
    command = "gui"
    if args and args[0] in COMMANDS:
        command, args = args[0], args[1:]
    ns = _parser(command).parse_args(args)
    return RUNNERS[command](ns)


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
