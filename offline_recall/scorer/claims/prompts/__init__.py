"""The claim scorers' versioned prompt sets (context recall's and faithfulness's): extracting a
text's claims and judging each against the context, stored as data files beside this module."""

from __future__ import annotations

import json
import tomllib
from functools import cache
from string import Template

from pydantic import BaseModel, ConfigDict, Field

from ....engines import Message, Prompt
from ....errors import ConfigurationError
from ... import prompts as prompting

TAGS = ("context", "claim")
"""The delimiters of the judge prompt; texts are fenced so they cannot close them."""


def _fenced(text: str) -> str:
    return prompting.fenced(text, TAGS)


class ExtractPrompt(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str
    user: str
    example_text: str
    example_claims: tuple[str, ...]
    min_grounding: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Drop a claim unless this share of its content words is in the text",
    )
    fallback_to_sentences: bool = Field(
        default=False,
        description="When no claim survives (or none was finished), use the text's sentences",
    )
    min_sentence_coverage: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Add a sentence of the text as a claim when less than this share of its "
        "content words appear in the extracted claims",
    )
    drop_invented: bool = Field(
        default=False,
        description="Drop a claim that holds a number or a name its text does not",
    )
    drop_invented_quantities: bool = Field(
        default=False,
        description="Drop a claim that states a quantity (digits or number words, any unit) "
        "its text states in no form",
    )
    min_predicate_grounding: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Drop a claim unless this share of the content words after its subject "
        "(stemmed) is in its text: the subject named, the rest made up",
    )
    drop_contained: bool = Field(
        default=False,
        description="Drop a claim whose content words another claim holds all of, and more "
        "(a repeat: 'postponed' beside 'postponed until Friday')",
    )
    drop_reversed: bool = Field(
        default=False,
        description="Drop a claim that negates, or says the opposite of, the sentence of its "
        "text it best matches (an invented 'not', 'rose' for 'fell')",
    )
    per_sentence: bool = Field(
        default=False,
        description="Ask for each sentence's claims on its own (every sentence of a batch at "
        "once), the rules applied against that sentence",
    )
    sentence_tokens: int | None = Field(
        default=None, gt=0, description="With per_sentence: the bound on one sentence's answer"
    )
    sentence_claims: int | None = Field(
        default=None, gt=0, description="With per_sentence: the most claims of one sentence"
    )
    single_claim_words: int | None = Field(
        default=None,
        gt=0,
        description="With per_sentence: a sentence of one clause (no joining word or mark) "
        "with at most this many content words is its own claim, without a model call",
    )
    drop_trivial: bool = Field(
        default=False,
        description="Drop a claim that only restates its sentence's subject, or that is the "
        "tail of another claim of the sentence",
    )


JudgePrompt = prompting.YesNoPrompt
"""Whether a context supports a claim: `$context` and `$claim` in the user text."""


class PromptSet(prompting.VersionedPrompts):
    """The prompts a model is driven with; `version` travels with every result."""

    extract: ExtractPrompt
    judge: JudgePrompt

    def extract_messages(self, text: str) -> list[Message]:
        """Chat messages asking for the claims of `text`, with one worked example."""
        p = self.extract
        example_answer = json.dumps({"claims": list(p.example_claims)}, ensure_ascii=False)
        return [
            {"role": "system", "content": p.system},
            {"role": "user", "content": Template(p.user).substitute(text=p.example_text)},
            {"role": "assistant", "content": example_answer},
            {"role": "user", "content": Template(p.user).substitute(text=text)},
        ]

    def extract_prompt(self, text: str) -> Prompt:
        """The prompt asking for the claims of `text`; everything ahead of the text (the
        instructions, the worked example) is shared by every text's prompt."""
        head = Template(self.extract.user.split("$text")[0]).safe_substitute()
        return Prompt(messages=tuple(self.extract_messages(text)), shared=head, fields=(text,))

    def judge_messages(self, context: str, claim: str) -> list[Message]:
        """Chat messages asking whether `context` supports `claim`, context first.

        Delimiter tags inside either text are defused: the context stays data in its block.
        An empty system text (a verifier's own prompt may have none) sends no system turn.
        """
        user = Template(self.judge.user).substitute(context=_fenced(context), claim=_fenced(claim))
        system: list[Message] = (
            [{"role": "system", "content": self.judge.system}] if self.judge.system else []
        )
        return [*system, {"role": "user", "content": user}]

    def judge_prompt(self, context: str, claim: str) -> Prompt:
        """The yes/no prompt for one pair; its context part is shared by the context's claims."""
        head = Template(self.judge.user.split("$claim")[0]).safe_substitute(
            context=_fenced(context)
        )
        return Prompt(
            messages=tuple(self.judge_messages(context, claim)),
            shared=head,
            pair=(context, claim),
            fields=(context, claim),
        )


class JudgePromptFile(BaseModel):
    """A model's own yes/no question (a generative verifier's), kept in a file its manifest
    names: the `[judge]` table of a prompt set, nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: JudgePrompt


def with_judge_prompt(prompts: PromptSet, text: str | None) -> PromptSet:
    """`prompts` asking the judge with the question in `text` (a judge prompt file's TOML),
    its extraction prompts unchanged; `prompts` itself when `text` is None."""
    if text is None:
        return prompts
    try:
        judge = JudgePromptFile.model_validate(tomllib.loads(text)).judge
    except (tomllib.TOMLDecodeError, ValueError) as e:
        raise ConfigurationError(f"invalid judge prompt file: {str(e).splitlines()[0]}") from e
    for name in ("$context", "$claim"):
        if name not in judge.user:
            raise ConfigurationError(f"the judge prompt's user text needs {name}")
    return prompts.model_copy(update={"judge": judge})


@cache
def load_prompts(version: str) -> PromptSet:
    """The prompt set stored as `<version>.toml`; an unknown version lists the known ones."""
    return prompting.load(__name__, version, PromptSet)
