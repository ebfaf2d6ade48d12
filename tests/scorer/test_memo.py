from __future__ import annotations

from offline_recall.scorer.memo import Memo


def test_remembers_and_forgets_the_least_recently_used() -> None:
    calls: list[list[str]] = []

    def upper(keys: list[str]) -> list[str]:
        calls.append(keys)
        return [k.upper() for k in keys]

    memo: Memo[str, str] = Memo(size=2)
    assert memo.lookup(["a", "b", "a"], upper) == {"a": "A", "b": "B"}
    assert memo.lookup(["a"], upper) == {"a": "A"}
    assert memo.lookup(["c"], upper) == {"c": "C"}  # forgets "b", used least recently
    assert memo.lookup(["a", "b"], upper) == {"a": "A", "b": "B"}
    assert calls == [["a", "b"], ["c"], ["b"]]
