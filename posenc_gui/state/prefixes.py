"""Results over the lengths ``0 … n−1`` served as prefixes of the longest one.

A slider over a length (positions, distances) asks for the same quantity at length after
length. Where the value at each index does not depend on the length (the first ``n`` of the
longest result are the result at ``n``, bit for bit), the longest result is computed once the
length changes for a key and every next length is a slice of it: a length step computes
nothing, and a key seen at one length only is computed at that length alone.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class Prefixes(Generic[K, T]):
    """Results by ``(key, length)``: ``compute(key, n)``, or ``cut(longest, n)`` once the
    length changed for ``key``.

    ``longest``: the length of the kept results; ``kept``: how many keys keep their longest
    result; ``seen``: how many keys remember the length last asked (what tells a length step
    from a first look).
    """

    def __init__(
        self,
        longest: int,
        compute: Callable[[K, int], T],
        cut: Callable[[T, int], T],
        kept: int = 4,
        seen: int = 16,
    ) -> None:
        self.longest_length = longest
        self.compute = compute
        self.cut = cut
        self.kept, self.seen = kept, seen
        #: The longest result of the last few keys whose length changed.
        self.longest: OrderedDict[K, T] = OrderedDict()
        #: The length last asked for each key.
        self.lengths: OrderedDict[K, int] = OrderedDict()

    def get(self, key: K, n: int, *, sliceable: bool = True) -> T:
        """The result of ``key`` at length ``n`` (``sliceable=False``: a key whose results are
        not prefixes of each other, always computed)."""
        longest = self.longest.get(key)
        if longest is None and sliceable and self.lengths.get(key, n) != n:
            longest = self.longest[key] = self.compute(key, self.longest_length)
            while len(self.longest) > self.kept:
                self.longest.popitem(last=False)
        self.lengths[key] = n
        self.lengths.move_to_end(key)
        while len(self.lengths) > self.seen:
            self.lengths.popitem(last=False)
        if longest is not None:
            self.longest.move_to_end(key)
            return self.cut(longest, n)
        return self.compute(key, n)
