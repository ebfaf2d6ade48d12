"""A scripted backend for unit tests of the pipeline. Never the only test of a feature."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..chunking import split_sentences
from .base import BackendInfo, Failed

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


class FakeBackend:
    """Claims from a script or sentence splitting; P(yes) from a script or word overlap.

    With `record_calls` (the default), every call is recorded so tests can check what the
    pipeline asked the model; a long run through the command line records nothing.
    """

    def __init__(
        self,
        claims: Mapping[str, list[str] | Failed] | None = None,
        p_yes: Mapping[tuple[str, str], float] | None = None,
        *,
        threshold: float = 0.5,
        context_budget: int = 512,
        text_budget: int = 512,
        fingerprint: str = "fake@0000000000000000",
        record_calls: bool = True,
    ) -> None:
        self._claims = dict(claims or {})
        self._p_yes = dict(p_yes or {})
        self._info = BackendInfo(
            fingerprint=fingerprint,
            prompt_version="fake",
            threshold=threshold,
            context_budget=context_budget,
            text_budget=text_budget,
        )
        self._record = record_calls
        self.extract_calls: list[list[str]] = []
        self.judge_calls: list[list[tuple[str, str]]] = []

    @property
    def info(self) -> BackendInfo:
        return self._info

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def extract_claims(self, texts: Sequence[str]) -> list[list[str] | Failed]:
        if self._record:
            self.extract_calls.append(list(texts))
        return [self._claims.get(t, split_sentences(t)) for t in texts]

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if self._record:
            self.judge_calls.append(list(pairs))
        return [self._p_yes.get(pair, self._overlap(*pair)) for pair in pairs]

    @staticmethod
    def _overlap(context: str, claim: str) -> float:
        claim_words = _words(claim)
        return len(claim_words & _words(context)) / len(claim_words) if claim_words else 0.0
