"""A scripted engine for tests of a pipeline. Never the only test of a feature.

It answers from the texts a prompt was made of (`Prompt.fields`), so a test can script answers
by those texts: a JSON list for the first field, the first answer's probability for the fields
of a question. What it is not scripted for, it answers by simple rules: the first field's
sentences as the list, and as the first answer's probability the share of the last field's
content words found in the others. Content words are the words left once English function words
(`STOP_WORDS`: articles, auxiliaries, pronouns, prepositions, conjunctions, question words) are
taken out, compared case-folded and unstemmed; a last field with no content word gets 0. So
"The Moon is made of cheese." against "Paris is the capital of France." gets 0, not the half its
shared "the", "is" and "of" would give: a fake verdict means the claim's own words are in the
evidence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from .base import Done, EngineIdentity, Failed, JsonOutput, Prompt, ScorerDefaults

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n+")
FINGERPRINT = "fake@0000000000000000"
_STOP = """a an the of in on at to for and or but if so than then there about into is are was were
be been being am do does did has have had can could will would shall should may might must by
with as from that this these those it its i me my we us our you your he him his she her they
them their not no also which what who whom whose when where why how s t"""
STOP_WORDS = frozenset(_STOP.split())
"""Words the support signal leaves out: they are shared by unrelated sentences."""


def _content_words(text: str) -> set[str]:
    return {w for w in (w.casefold() for w in _WORD.findall(text)) if w not in STOP_WORDS}


class FakeOptions(BaseModel):
    """The fake engine has nothing to set."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    RUNTIME: ClassVar[frozenset[str]] = frozenset()


class FakeEngine:
    """Scripted JSON lists and answer probabilities; every call recorded when `record_calls`.

    `lists` maps a prompt's first field to the strings of the JSON list it answers (or a
    `Failed`); `p_yes` maps a prompt's fields to the probability of the first answer word.
    The list goes into the first list field of the output type.
    """

    def __init__(
        self,
        lists: Mapping[str, list[str] | Failed] | None = None,
        p_yes: Mapping[tuple[str, ...], float] | None = None,
        *,
        context_window: int = 2048,
        fingerprint: str = FINGERPRINT,
        scorers: Mapping[str, ScorerDefaults] | None = None,
        prompt_version: str | None = "v1",
        record_calls: bool = True,
    ) -> None:
        self._lists = dict(lists or {})
        self._p_yes = dict(p_yes or {})
        self._identity = EngineIdentity(
            engine="fake",
            fingerprint=fingerprint,
            dtype="none",
            context_window=context_window,
            scorers=dict(scorers or {}),
            prompt_version=prompt_version,
        )
        self._record = record_calls
        self.json_calls: list[list[str]] = []
        self.answer_calls: list[list[tuple[str, ...]]] = []

    @property
    def identity(self) -> EngineIdentity:
        return self._identity

    def close(self) -> None:
        """Nothing to release."""

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def prompt_tokens(self, prompt: Prompt) -> int:
        return sum(self.count_tokens(m["content"]) + 2 for m in prompt.messages)

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        firsts = [p.fields[0] if p.fields else "" for p in prompts]
        if self._record:
            self.json_calls.append(firsts)
        name = next(iter(output.schema.model_fields))
        out: list[str | Failed] = []
        for text in firsts:
            found = self._lists.get(
                text, [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
            )
            out.append(found if isinstance(found, Failed) else json.dumps({name: found}))
        if done is not None:
            done(len(prompts))
        return out

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        fields = [p.fields for p in prompts]
        if self._record:
            self.answer_calls.append(fields)
        out: list[tuple[float, ...] | Failed] = []
        for f in fields:
            p = self._p_yes.get(f, self._overlap(f))
            rest = (1.0 - p) / max(1, len(answers) - 1)
            out.append((p, *([rest] * (len(answers) - 1))))
        if done is not None:
            done(len(prompts))
        return out

    @staticmethod
    def _overlap(fields: tuple[str, ...]) -> float:
        if len(fields) < 2:
            return 0.0
        last = _content_words(fields[-1])
        others = set().union(*(_content_words(f) for f in fields[:-1]))
        return len(last & others) / len(last) if last else 0.0
