"""Context relevance's versioned prompt sets, stored as data files beside this module."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from string import Template

from pydantic import BaseModel, ConfigDict, Field

from ....engines import Message, Prompt
from ....scorer import prompts as prompting

TAGS = ("question", "response", "passage")
"""The delimiters of the relevance prompt; texts are fenced so they cannot close them."""


@dataclass(frozen=True)
class Target:
    """What a chunk is judged against: the run's question and its response (either may be
    missing)."""

    question: str | None
    response: str | None

    def __str__(self) -> str:
        """The text the judge's word signals read: the question's words and the response's."""
        return f"{self.question or ''}\n{self.response or ''}"


class LevelPrompt(BaseModel):
    """A four-way question: the system and user texts (`$question`, `$response`, `$chunk`) and
    the level words, best first, each one token."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str
    user: str
    levels: tuple[str, str, str, str]


class Rules(BaseModel):
    """The deterministic parts of a chunk's verdict (see v1.toml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spread: float = Field(gt=0, description="Logits between one level's cut and the next")
    used_share: float = Field(gt=0, le=1)
    found_share: float = Field(gt=0, le=1)


class PromptSet(prompting.VersionedPrompts):
    """The prompts context relevance drives a model with; `version` travels with every result."""

    judge: LevelPrompt
    rules: Rules

    def _fill(self, template: str, target: Target, chunk: str) -> str:
        return Template(template).safe_substitute(
            question=prompting.fenced(target.question or "(none given)", TAGS),
            response=prompting.fenced(target.response or "(none given)", TAGS),
            chunk=prompting.fenced(chunk, TAGS),
        )

    def judge_messages(self, chunk: str, target: Target) -> list[Message]:
        """Chat messages asking how relevant `chunk` is to the question and response."""
        return [
            {"role": "system", "content": self.judge.system},
            {"role": "user", "content": self._fill(self.judge.user, target, chunk)},
        ]

    def judge_prompt(self, chunk: str, target: Target) -> Prompt:
        """The four-way prompt for one chunk; its question-and-response head is shared by all
        the chunks of that run."""
        head = self._fill(self.judge.user.split("$chunk")[0], target, "")
        return prompting.chunk_prompt(self.judge_messages(chunk, target), head, chunk, target)


@cache
def load_prompts(version: str) -> PromptSet:
    """The prompt set stored as `<version>.toml`; an unknown version lists the known ones."""
    return prompting.load(__name__, version, PromptSet)
