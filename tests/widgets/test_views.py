"""The view mechanism: keys (a view whose key did not change is not run) and the memo (a
derived quantity looked up once per refresh)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from posenc_gui.widgets.style import Style
from posenc_gui.widgets.views import Context, Memo, Same, View, ViewSet, same_key


def _set() -> tuple[ViewSet, list[str]]:
    """Parameters a, b; derived ``twice_a`` (counts its computations in ``log``)."""
    log: list[str] = []
    views = ViewSet(["a", "b"])

    def twice(ctx: Context) -> float:
        log.append("twice_a")
        return 2 * ctx.values.as_float("a")

    views.add_derived("twice_a", ["a"], twice)
    return views, log


def _run(views: ViewSet, view: View, values: dict[str, Any], style: Style | None = None) -> bool:
    return view.run(views.context_for(view, values, style or Style(), Memo(values)))


def test_a_view_with_an_unchanged_key_is_not_run() -> None:
    views, _ = _set()
    drawn: list[float] = []

    def refresh(ctx: Context) -> None:
        drawn.append(ctx["twice_a"])
        ctx.record("y", ctx["twice_a"], "2a")

    # inputs a and b; what it shows depends on a only
    v = views.add_view(View("v", None, ["twice_a", "b"], refresh, key=lambda c: c["twice_a"]))
    assert _run(views, v, {"a": 1.0, "b": 0.0})
    assert not _run(views, v, {"a": 1.0, "b": 5.0})  # b changed, the key did not
    assert drawn == [2.0] and (v.refresh_count, v.skip_count) == (1, 1)
    assert v.data()["y"].values == 2.0  # its data stays what it shows


def test_a_changed_key_or_style_runs_the_view() -> None:
    views, _ = _set()
    drawn: list[float] = []
    v = views.add_view(View("v", None, ["a"], lambda c: drawn.append(c.values.as_float("a")),
                            key=lambda c: c.values.as_float("a")))  # fmt: skip
    _run(views, v, {"a": 1.0, "b": 0.0})
    _run(views, v, {"a": 2.0, "b": 0.0})
    _run(views, v, {"a": 2.0, "b": 0.0}, Style(theme="dark"))  # colours changed
    assert drawn == [1.0, 2.0, 2.0] and v.skip_count == 0
    v.forget()  # changed outside its refresh: runs whatever the key
    assert _run(views, v, {"a": 2.0, "b": 0.0}, Style(theme="dark"))


def test_a_view_without_a_key_always_runs() -> None:
    views, _ = _set()
    v = views.add_view(View("v", None, ["a"], lambda c: None))
    assert _run(views, v, {"a": 1.0, "b": 0.0}) and _run(views, v, {"a": 1.0, "b": 0.0})
    assert v.refresh_count == 2


def test_a_refresh_that_raises_leaves_no_key_behind() -> None:
    views, _ = _set()
    fail = [True]

    def refresh(ctx: Context) -> None:
        if fail[0]:
            raise RuntimeError("boom")

    v = views.add_view(View("v", None, ["a"], refresh, key=lambda c: c.values.as_float("a")))
    with pytest.raises(RuntimeError):
        _run(views, v, {"a": 1.0, "b": 0.0})
    fail[0] = False
    assert _run(views, v, {"a": 1.0, "b": 0.0})  # not skipped: it never showed a = 1


def test_memo_looks_each_quantity_up_once_per_refresh() -> None:
    views, log = _set()
    views.add_derived("four_a", ["a"], lambda c: 2 * c["twice_a"])
    seen: list[object] = []
    v1 = views.add_view(View("v1", None, ["twice_a", "four_a"],
                             lambda c: seen.append((c["twice_a"], c["four_a"])),
                             key=lambda c: c["twice_a"]))  # fmt: skip
    v2 = views.add_view(View("v2", None, ["twice_a"], lambda c: seen.append(c["twice_a"])))
    values = {"a": 3.0, "b": 0.0}
    memo = Memo(values)
    for v in (v1, v2):  # one refresh: key, refreshes and the derived "four_a" share the memo
        v.run(views.context_for(v, values, Style(), memo))
    assert memo.lookups == {"twice_a": 1, "four_a": 1}
    assert log == ["twice_a"] and seen == [(6.0, 12.0), 6.0]
    later = {"a": 3.0, "b": 1.0}  # a new refresh: a new memo, the cache still holds
    memo = Memo(later)
    v2.run(views.context_for(v2, later, Style(), memo))
    assert memo.lookups == {"twice_a": 1} and log == ["twice_a"]


def test_a_memo_of_other_values_is_not_used() -> None:
    """A context given a memo made for other values (another refresh) starts its own."""
    views, _ = _set()
    v = views.add_view(View("v", None, ["twice_a"], lambda c: c.record("y", c["twice_a"], "")))
    stale = Memo({"a": 1.0, "b": 0.0})
    stale.get("twice_a", lambda: 2.0)
    values = {"a": 4.0, "b": 0.0}
    v.run(views.context_for(v, values, Style(), stale))
    assert v.data()["y"].values == 8.0


def test_undeclared_quantities_still_fail_with_a_memo() -> None:
    views, _ = _set()
    v = views.add_view(View("v", None, ["b"], lambda c: c["twice_a"], key=lambda c: 0))
    with pytest.raises(KeyError, match="does not declare"):
        _run(views, v, {"a": 1.0, "b": 0.0})


def test_keys_compare_arrays_and_containers() -> None:
    a = np.arange(5.0)
    assert same_key((1, a, {"x": a}), (1, a.copy(), {"x": a.copy()}))
    assert not same_key((1, a), (1, a + 1))
    assert not same_key((1, a), (1, a[:3]))
    assert not same_key((1.0,), (1,))  # another type: another key
    assert same_key(Same(a), Same(a)) and not same_key(Same(a), Same(a.copy()))
    assert not same_key(float("nan"), float("nan"))  # cannot say: run


def test_keys_that_cannot_compare_count_as_changed() -> None:
    class Opaque:
        def __eq__(self, other: object) -> bool:
            raise ValueError("ambiguous")

        __hash__ = None  # type: ignore[assignment]

    assert not same_key(Opaque(), Opaque())


def test_kept_hands_out_the_last_values_by_key() -> None:
    from posenc_gui.widgets.views import Kept

    kept = Kept(2)
    made: list[str] = []

    def make(k: str) -> list[str]:
        made.append(k)
        return [k]

    a = kept.get("a", lambda: make("a"))
    assert kept.get("a", lambda: make("a")) is a and kept.last is a and kept.last_key == "a"
    kept.get("b", lambda: make("b"))
    assert kept.get("a", lambda: make("a")) is a  # found again; "b" is now the oldest
    kept.get("c", lambda: make("c"))  # drops "b"
    kept.get("b", lambda: make("b"))
    assert made == ["a", "b", "c", "b"]


def test_same_key_compares_lists_of_numbers_whole_and_strictly() -> None:
    from posenc_gui.widgets.views import same_key

    q = [0.5 * i for i in range(512)]
    assert same_key((q, {"q": q}), (list(q), {"q": list(q)}))
    assert not same_key(q, [*q[:-1], 1e9])
    assert not same_key([1, 2], [1.0, 2.0])  # equal by ==, not by type
    assert not same_key([1.0, np.zeros(2)], [1.0, np.ones(2)])  # arrays item by item
    assert same_key([1.0, np.zeros(0)], [1.0, np.zeros(0)])
