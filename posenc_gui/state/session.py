"""The session: everything a user set up, in one object that round-trips through JSON.

A :class:`Session` holds the current tab, every tab's :class:`ParamState` (created on first use,
at the defaults), each tab's *view state* (zoom and pan ranges a user changed in the plots), the
theme, the scale and the colour-map set. The application owns one; panels mirror its states.

:meth:`Session.from_dict` validates everything through the tabs' models: a file that is not a
session, comes from a newer version, names an unknown tab or parameter or holds an out-of-range
value raises :class:`SessionError` with one clear sentence, and no state is changed. Qt-free.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any

from posenc_gui.state import jsonfile
from posenc_gui.state.model import ParamState
from posenc_gui.state.params import ParamError, echo
from posenc_gui.state.registry import TAB_IDS, get_model

#: Version of the session file format; a newer file is refused, an older one upgraded.
SCHEMA_VERSION = 1
KIND = "posenc-explorer-session"
THEMES = ("light", "dark")
#: Ids of the bundled colour-map sets (``posenc_gui.widgets.style.COLORMAP_SETS``, Qt-side).
COLORMAP_SETS = ("colorblind", "blue-red", "dark-centred")
SCALE_RANGE = (0.75, 3.0)
#: A session file larger than this is refused before it is parsed.
MAX_FILE_BYTES = 4 * 1024 * 1024


class SessionError(ValueError):
    """A session that cannot be loaded; the message says why, in one sentence."""


class Session:
    """The current tab, every tab's parameters and view state, the theme, scale and colour maps."""

    def __init__(self, current_tab: str = TAB_IDS[0]) -> None:
        if current_tab not in TAB_IDS:
            raise SessionError(f"unknown tab {echo(current_tab)}; known: {', '.join(TAB_IDS)}")
        self.current_tab = current_tab
        self._states: dict[str, ParamState] = {}
        self.view_states: dict[str, dict[str, Any]] = {}
        self.theme = "light"
        self.scale = 1.0
        self.colormaps = COLORMAP_SETS[0]

    def state(self, tab_id: str) -> ParamState:
        """The state of ``tab_id`` (created at the defaults on first use)."""
        if tab_id not in self._states:
            self._states[tab_id] = ParamState(get_model(tab_id))
        return self._states[tab_id]

    def states(self) -> dict[str, ParamState]:
        """Every tab's state, in display order (creating the missing ones)."""
        return {t: self.state(t) for t in TAB_IDS}

    # -- JSON -------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (schema :data:`SCHEMA_VERSION`)."""
        return {
            "kind": KIND,
            "version": SCHEMA_VERSION,
            "current_tab": self.current_tab,
            "theme": self.theme,
            "scale": self.scale,
            "colormaps": self.colormaps,
            "tabs": {
                t: {"params": s.values(), "view": dict(self.view_states.get(t, {}))}
                for t, s in self.states().items()
            },
        }

    @classmethod
    def from_dict(cls, data: object) -> Session:
        """A validated session; :class:`SessionError` (nothing changed anywhere) otherwise."""
        if not isinstance(data, Mapping):
            raise SessionError("not a session: the file holds no JSON object")
        if data.get("kind") != KIND:
            raise SessionError(f"not a session: 'kind' must be {KIND!r}")
        jsonfile.check_version(data, "session", SessionError, SCHEMA_VERSION)
        session = cls(_current_tab(data.get("current_tab", TAB_IDS[0])))
        session.theme = _theme(data.get("theme", "light"))
        session.scale = _scale(data.get("scale", 1.0))
        session.colormaps = _colormaps(data.get("colormaps", COLORMAP_SETS[0]))
        tabs = data.get("tabs", {})
        if not isinstance(tabs, Mapping):
            raise SessionError("'tabs' must be an object mapping tab ids to their settings")
        for tab_id, tab in tabs.items():
            if tab_id not in TAB_IDS:
                raise SessionError(f"unknown tab {echo(tab_id)}; known: {', '.join(TAB_IDS)}")
            if not isinstance(tab, Mapping):
                raise SessionError(f"tab {tab_id!r} must be an object with 'params' and 'view'")
            params = tab.get("params", {})
            if not isinstance(params, Mapping):
                raise SessionError(f"tab {tab_id!r}: 'params' must be an object")
            model = get_model(tab_id)
            try:
                for name in params:
                    model.param(str(name))
                values = model.resolve(dict(params))
            except ParamError as err:
                raise SessionError(f"tab {tab_id!r}: {err}") from None
            session._states[tab_id] = ParamState(model, values)
            view = tab.get("view", {})
            if not isinstance(view, Mapping) or not all(_json_scalar(v) for v in view.values()):
                raise SessionError(
                    f"tab {tab_id!r}: 'view' must map names to numbers, text or number lists"
                )
            for key, v in view.items():
                bad = jsonfile.unpaired_surrogate(str(key) + (v if isinstance(v, str) else ""))
                if bad is not None:
                    raise SessionError(
                        f"tab {tab_id!r}: 'view' {echo(key)} contains an unpaired surrogate ({bad})"
                    )
            try:
                model.check_view(values, view)
            except ParamError as err:
                raise SessionError(f"tab {tab_id!r}: {err}") from None
            session.view_states[tab_id] = dict(view)
        return session

    def to_json(self) -> str:
        """The session as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Session:
        """Parse and validate JSON text (see :meth:`from_dict`)."""
        return cls.from_dict(jsonfile.parse(text, "session", SessionError))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crash mid-write never leaves half a file in place."""
        jsonfile.write_atomic(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Session:
        """Read and validate a session file; :class:`SessionError` or :class:`OSError`."""
        return cls.from_dict(jsonfile.read(path, "session", SessionError, MAX_FILE_BYTES))


def _current_tab(value: object) -> str:
    if not isinstance(value, str) or value not in TAB_IDS:
        raise SessionError(f"'current_tab' must be one of {', '.join(TAB_IDS)}, got {echo(value)}")
    return value


def _theme(value: object) -> str:
    if value not in THEMES:
        raise SessionError(f"'theme' must be one of {', '.join(THEMES)}, got {echo(value)}")
    return str(value)


def _colormaps(value: object) -> str:
    if value not in COLORMAP_SETS:
        raise SessionError(
            f"'colormaps' must be one of {', '.join(COLORMAP_SETS)}, got {echo(value)}"
        )
    return str(value)


def _scale(value: object) -> float:
    lo, hi = SCALE_RANGE
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not lo <= value <= hi
    ):
        raise SessionError(f"'scale' must be a number from {lo} to {hi}, got {echo(value)}")
    return float(value)


def _json_scalar(v: object) -> bool:
    """A finite number, a bool, a string, or a short list of finite numbers (a range)."""
    if isinstance(v, list):
        return len(v) <= 16 and all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in v
        )
    if isinstance(v, float):
        return math.isfinite(v)
    return isinstance(v, bool | int | str)
