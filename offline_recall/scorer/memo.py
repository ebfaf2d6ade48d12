"""Work already done in a run, remembered so that it is not done again, within a bound."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _digest(key: Hashable) -> bytes:
    parts = key if isinstance(key, tuple) else (key,)
    return hashlib.blake2b("\0".join(map(str, parts)).encode(), digest_size=16).digest()


class Memo(Generic[K, V]):
    """Answers for up to `size` keys, the least recently used forgotten first.

    Keys are stored as 16-byte digests, so remembering a long context costs no more than a
    short one.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._answers: OrderedDict[bytes, V] = OrderedDict()

    def lookup(self, keys: Sequence[K], compute: Callable[[list[K]], list[V]]) -> dict[K, V]:
        """The answer for each key; the ones not remembered are computed in one call."""
        digests = {key: _digest(key) for key in keys}
        missing = [key for key, d in digests.items() if d not in self._answers]
        computed = dict(zip(missing, compute(missing) if missing else [], strict=True))
        answers: dict[K, V] = {}
        for key, d in digests.items():
            if key in computed:
                self._answers[d] = computed[key]
            self._answers.move_to_end(d)
            answers[key] = self._answers[d]
        while len(self._answers) > self._size:
            self._answers.popitem(last=False)
        return answers

    def forget(self, keys: Iterable[K]) -> None:
        """Drop the answers for `keys` (a failure is not remembered: it is tried again)."""
        for key in keys:
            self._answers.pop(_digest(key), None)
