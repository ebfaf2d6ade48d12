"""Context precision's versioned prompt sets, stored as data files beside this module."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from string import Template

from ....engines import Message, Prompt
from ....scorer import prompts as prompting

TAGS = ("question", "answer", "passage")
"""The delimiters of the relevance prompt; texts are fenced so they cannot close them."""


@dataclass(frozen=True)
class Target:
    """What a chunk is judged against, the statement of a judged pair: the question (when the
    run has one) and the expected answer."""

    question: str | None
    answer: str

    def __str__(self) -> str:
        """The text the judge's word signals read: the question's words and the answer's."""
        return f"{self.question or ''}\n{self.answer}"


RelevancePrompt = prompting.YesNoPrompt
"""Whether a chunk is useful for the answer: `$question`, `$answer`, `$chunk` in the user text."""


class PromptSet(prompting.VersionedPrompts):
    """The prompts context precision drives a model with; `version` travels with every result."""

    judge: RelevancePrompt

    def _fill(self, template: str, question: str, answer: str, chunk: str) -> str:
        return Template(template).safe_substitute(
            question=prompting.fenced(question or "(none given)", TAGS),
            answer=prompting.fenced(answer, TAGS),
            chunk=prompting.fenced(chunk, TAGS),
        )

    def judge_messages(self, chunk: str, target: Target) -> list[Message]:
        """Chat messages asking whether `chunk` helps arrive at the expected answer."""
        question, answer = target.question or "", target.answer
        return [
            {"role": "system", "content": self.judge.system},
            {"role": "user", "content": self._fill(self.judge.user, question, answer, chunk)},
        ]

    def judge_prompt(self, chunk: str, target: Target) -> Prompt:
        """The yes/no prompt for one chunk; its question-and-answer head is shared by all the
        chunks retrieved for that question."""
        question, answer = target.question or "", target.answer
        head = self._fill(self.judge.user.split("$chunk")[0], question, answer, "")
        return prompting.chunk_prompt(self.judge_messages(chunk, target), head, chunk, target)


@cache
def load_prompts(version: str) -> PromptSet:
    """The prompt set stored as `<version>.toml`; an unknown version lists the known ones."""
    return prompting.load(__name__, version, PromptSet)
