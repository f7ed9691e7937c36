"""Results over lengths kept as prefixes of the longest one (state.prefixes)."""

from __future__ import annotations

from posenc_gui.state.prefixes import Prefixes


def test_a_length_step_slices_the_longest_result_and_a_first_look_computes_its_own() -> None:
    calls: list[tuple[str, int]] = []

    def compute(key: str, n: int) -> list[int]:
        calls.append((key, n))
        return list(range(n))

    kept: Prefixes[str, list[int]] = Prefixes(100, compute, lambda r, n: r[:n], kept=2, seen=3)
    assert kept.get("a", 10) == list(range(10)) and calls == [("a", 10)]  # first look
    assert kept.get("a", 10) == list(range(10)) and calls[-1] == ("a", 10)  # same length
    assert kept.get("a", 20) == list(range(20)) and calls[-1] == ("a", 100)  # the longest
    n_calls = len(calls)
    assert kept.get("a", 7) == list(range(7)) and len(calls) == n_calls  # a slice
    assert kept.get("n", 5, sliceable=False) == list(range(5))
    assert kept.get("n", 6, sliceable=False) == list(range(6)) and calls[-1] == ("n", 6)
    for key in ("b", "c"):  # two more keys with a length step: "a" is the oldest kept, dropped
        kept.get(key, 3)
        kept.get(key, 4)
    assert list(kept.longest) == ["b", "c"]
    assert len(kept.lengths) <= 3
