"""Lesson decks: an ordered list of steps, each a tab, its parameters and a caption. Qt-free.

A deck file is JSON (schema :data:`SCHEMA_VERSION`)::

    {"format": "posenc-deck", "version": 1, "title": "RoPE in five steps",
     "steps": [{"tab": "rope", "params": {"m": 5, "n": 2}, "focus": "circle",
                "caption": "m − n = 3"}, ...]}

A :class:`Step` names a tab and only the parameters that matter for its figure; **every other
parameter of that tab is at its default** when the step is shown, whatever the lecturer did
before. So a step always shows the same figure, forwards or backwards, and a deck written today
still means the same thing when a tab gains a parameter. ``caption`` (optional, may be empty) is
shown as a banner above the tab. ``focus`` (optional) names the figure the caption talks about:
one of the tab's figure ids (:attr:`TabModel.figures`); showing the step enlarges that figure
(no focus: the tab shows all its figures). A step holds nothing else: no theme, scale or zoom
(those belong to the lecturer, not to the lesson).

:meth:`Deck.from_dict` validates everything through the tabs' models, exactly like a session:
a file that is not a deck, comes from a newer version, is empty, or has a step with an unknown
tab, an unknown parameter, a value of the wrong type or out of its range (static or dynamic,
such as a position beyond the sequence) or a focus that is not one of the tab's figures raises
:class:`DeckError` with one sentence naming the step (counted from 1) and the field. Nothing is
half-loaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc_gui.state import jsonfile
from posenc_gui.state.params import ParamError, Value, echo
from posenc_gui.state.registry import TAB_IDS, get_model

#: Version of the deck file format; a newer file is refused.
SCHEMA_VERSION = 1
FORMAT = "posenc-deck"
#: A deck file larger than this is refused before it is parsed.
MAX_FILE_BYTES = 1024 * 1024
MAX_STEPS = 500
MAX_TITLE_CHARS = 200
MAX_CAPTION_CHARS = 600
STEP_FIELDS = ("tab", "params", "focus", "caption")
DECK_FIELDS = ("format", "version", "title", "steps")
#: Title of a deck started with "Add current view as step".
UNTITLED = "Untitled deck"
#: Where the bundled decks live (package data).
BUNDLED_DIR = Path(__file__).resolve().parents[1] / "resources" / "decks"


class DeckError(ValueError):
    """A deck that cannot be used; the message says why, in one sentence."""


@dataclass(frozen=True)
class Step:
    """One step: a tab, the parameters that differ from its defaults, the figure the caption
    talks about (``None``: the whole tab) and a caption."""

    tab: str
    params: Mapping[str, Value] = field(default_factory=dict)
    caption: str = ""
    focus: str | None = None

    def values(self) -> dict[str, Value]:
        """Every parameter of the tab: the defaults with :attr:`params` on top (validated)."""
        return get_model(self.tab).resolve(dict(self.params))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``focus`` left out when ``None``, ``caption`` when empty)."""
        out: dict[str, Any] = {"tab": self.tab, "params": dict(self.params)}
        if self.focus is not None:
            out["focus"] = self.focus
        if self.caption:
            out["caption"] = self.caption
        return out

    @classmethod
    def from_values(
        cls, tab: str, values: Mapping[str, Value], caption: str = "", focus: str | None = None
    ) -> Step:
        """The step that shows ``values`` on ``tab`` (``focus``: its enlarged figure, if any):
        only what differs from the defaults kept.

        Raises :class:`DeckError` when ``values`` or ``focus`` are not accepted by the tab.
        """
        raw: dict[str, object] = {"tab": tab, "params": dict(values), "caption": caption}
        if focus is not None:
            raw["focus"] = focus
        step = _step(raw, 0)
        defaults = get_model(tab).defaults()
        kept = {
            k: v
            for k, v in step.params.items()
            if defaults[k] != v or type(defaults[k]) is not type(v)
        }
        return cls(tab, kept, caption.strip(), step.focus)


@dataclass(frozen=True)
class Deck:
    """A titled, non-empty sequence of :class:`Step`."""

    title: str
    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if not self.steps:
            raise DeckError("the deck has no steps: 'steps' must list at least one step")

    def __len__(self) -> int:
        return len(self.steps)

    # -- JSON ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (schema :data:`SCHEMA_VERSION`)."""
        return {
            "format": FORMAT,
            "version": SCHEMA_VERSION,
            "title": self.title,
            "steps": [s.to_dict() for s in self.steps],
        }

    def dumps(self) -> str:
        """The deck as indented JSON text (what :meth:`loads` reads back to an equal deck)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> Deck:
        """A validated deck; :class:`DeckError` naming the step and the field otherwise."""
        if not isinstance(data, Mapping):
            raise DeckError("not a deck: the file holds no JSON object")
        if data.get("format") != FORMAT:
            got = echo(data.get("format"))
            raise DeckError(f"not a deck: 'format' must be {FORMAT!r}, got {got}")
        jsonfile.check_version(data, "deck", DeckError, SCHEMA_VERSION)
        _no_unknown(data, DECK_FIELDS, "the deck")
        title = data.get("title")
        if not isinstance(title, str) or not title.strip():
            raise DeckError(f"'title' must be a non-empty text, got {echo(title)}")
        _no_surrogate(title, "'title'")
        if len(title) > MAX_TITLE_CHARS:
            raise DeckError(f"'title' must be at most {MAX_TITLE_CHARS} characters")
        steps = data.get("steps")
        if not isinstance(steps, list):
            raise DeckError(f"'steps' must be a list of steps, got {echo(steps)}")
        if not steps:
            raise DeckError("the deck has no steps: 'steps' must list at least one step")
        if len(steps) > MAX_STEPS:
            raise DeckError(f"'steps' must hold at most {MAX_STEPS} steps, got {len(steps)}")
        return cls(title.strip(), tuple(_step(s, k + 1) for k, s in enumerate(steps)))

    @classmethod
    def loads(cls, text: str) -> Deck:
        """Parse and validate JSON text (see :meth:`from_dict`)."""
        return cls.from_dict(jsonfile.parse(text, "deck", DeckError))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Deck:
        """Read and validate a deck file; :class:`DeckError` or :class:`OSError`."""
        return cls.from_dict(jsonfile.read(path, "deck", DeckError, MAX_FILE_BYTES))

    # -- editing (a new deck each time: decks are values) --------------------------------------
    def with_step(self, step: Step, at: int | None = None) -> Deck:
        """A copy with ``step`` inserted at index ``at`` (appended when ``None``)."""
        steps = list(self.steps)
        steps.insert(len(steps) if at is None else at, step)
        if len(steps) > MAX_STEPS:
            raise DeckError(f"a deck holds at most {MAX_STEPS} steps")
        return Deck(self.title, tuple(steps))

    def with_title(self, title: str) -> Deck:
        """A copy with another title (validated)."""
        return Deck.from_dict({**self.to_dict(), "title": title})


def bundled_decks() -> list[Path]:
    """The deck files shipped with the application, in the order of their file names."""
    if not BUNDLED_DIR.is_dir():
        return []
    return sorted(BUNDLED_DIR.glob("*.json"))


def read_title(path: str | os.PathLike[str]) -> str:
    """The title of a deck file without validating the rest (the file name when unreadable)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    title = data.get("title") if isinstance(data, dict) else None
    return title.strip() if isinstance(title, str) and title.strip() else Path(path).stem


def _no_unknown(data: Mapping[Any, Any], known: Sequence[str], where: str) -> None:
    for key in data:
        if key not in known:
            raise DeckError(f"{where}: unknown field {echo(key)}; known: {', '.join(known)}")


def _no_surrogate(text: str, what: str) -> None:
    """Refuse text no UTF-8 file can hold (a lone surrogate would make Save deck fail)."""
    bad = jsonfile.unpaired_surrogate(text)
    if bad is not None:
        raise DeckError(f"{what} contains an unpaired surrogate ({bad})")


def _step(raw: object, number: int) -> Step:
    """Validate step ``number`` (1-based; 0: not part of a deck yet) through its tab's model."""
    where = f"step {number}" if number else "the step"
    if not isinstance(raw, Mapping):
        raise DeckError(f"{where} must be an object with 'tab', 'params', 'focus' and 'caption'")
    _no_unknown(raw, STEP_FIELDS, where)
    tab = raw.get("tab")
    if not isinstance(tab, str) or tab not in TAB_IDS:
        got = "nothing" if tab is None else echo(tab)
        raise DeckError(f"{where}: 'tab' must be one of {', '.join(TAB_IDS)}, got {got}")
    params = raw.get("params", {})
    if not isinstance(params, Mapping):
        raise DeckError(f"{where}: 'params' must be an object mapping names to values")
    caption = raw.get("caption", "")
    if not isinstance(caption, str):
        raise DeckError(f"{where}: 'caption' must be text, got {echo(caption)}")
    _no_surrogate(caption, f"{where}: 'caption'")
    if len(caption) > MAX_CAPTION_CHARS:
        raise DeckError(f"{where}: 'caption' must be at most {MAX_CAPTION_CHARS} characters")
    model = get_model(tab)
    focus = raw.get("focus")
    if focus is not None and (not isinstance(focus, str) or focus not in model.figures):
        known = ", ".join(model.figures) or "none"
        raise DeckError(
            f"{where} (tab {tab!r}): 'focus' must name one of the tab's figures ({known}), "
            f"got {echo(focus)}"
        )
    checked: dict[str, Value] = {}
    try:
        for name, value in params.items():
            p = model.param(str(name))
            checked[p.name] = p.check(value)
        model.resolve(checked)
    except ParamError as err:
        raise DeckError(f"{where} (tab {tab!r}): 'params': {err}") from None
    return Step(tab, checked, caption.strip(), focus)
