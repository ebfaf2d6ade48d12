"""An answer read whole before its claims are extracted: its statements, clause by clause,
and the sentences that state nothing (a question, a greeting), each with the reason.

"No, managers are exempt from overtime." answers a question: the statement it makes is
"Managers are exempt from overtime.", which is what is extracted and judged. A compound
sentence is cut at its clauses ("Unused days carry over, and they expire on March 31." is two
statements), so the model cannot drop one half of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import Field

from ...frozen import Frozen
from ...text import split_sentences


class NotAClaim(Frozen):
    """A sentence of the output that makes no claim to judge, and why."""

    text: str
    reason: str = Field(description="Why it is not a claim: a question, a greeting, ...")


_ANSWERS = r"(?:yes|no|yeah|nope|correct|right|indeed|네|예|아니요|아니오)"
_ANSWER_WORD = re.compile(rf"^{_ANSWERS}\s*[,:;\u2014\u2013-]\s*", re.I)
_BARE_ANSWER = re.compile(rf"^{_ANSWERS}\s*[.!]*$", re.I)
_COURTESY = re.compile(
    r"^(?:(?:hi|hello|hey|greetings|thanks|thank you|you're welcome|you are welcome|sure|"
    r"of course|certainly|absolutely|great question|good question|happy to help|glad to help|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|let me know if you have "
    r"(?:any )?(?:other|more|further) questions|feel free to ask)(?:\s+(?:there|again))?"
    r"[\s,.!]*)+$",
    re.I,
)
_CLAUSES = re.compile(r"(?:,\s+(?:and|but|while|whereas)\s+|;\s+)(?=\S)")
_MIN_CLAUSE_WORDS = 3
"""Words each side of a clause boundary needs for the sentence to be cut there."""


@dataclass(frozen=True)
class Reading:
    """An answer's statements (each a clause to extract claims from) and its sentences that
    are not claims."""

    statements: list[str]
    set_aside: list[NotAClaim]

    @property
    def text(self) -> str:
        """The statements one per line, as the extraction reads sentences."""
        return "\n".join(self.statements)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _clauses(sentence: str) -> list[str]:
    """`sentence` cut at ", and", ", but", "; " ... where each side holds a clause."""
    parts = _CLAUSES.split(sentence)
    if len(parts) == 1 or any(len(p.split()) < _MIN_CLAUSE_WORDS for p in parts):
        return [sentence]
    ends = [p.rstrip(" ,;") for p in parts]
    return [_capitalised(p) + ("" if p[-1:] in ".!?" else ".") for p in ends]


def read_answer(text: str) -> Reading:
    """The statements of an answer and the sentences set aside, in the answer's order."""
    statements: list[str] = []
    set_aside: list[NotAClaim] = []
    for sentence in split_sentences(text):
        if sentence.rstrip().endswith(("?", "\uff1f")):
            set_aside.append(NotAClaim(text=sentence, reason="a question"))
            continue
        if _COURTESY.match(sentence):
            set_aside.append(NotAClaim(text=sentence, reason="a greeting or courtesy"))
            continue
        if _BARE_ANSWER.match(sentence):
            set_aside.append(
                NotAClaim(text=sentence, reason="a bare yes or no: it states nothing alone")
            )
            continue
        stated = _capitalised(_ANSWER_WORD.sub("", sentence, count=1))
        statements += _clauses(stated)
    return Reading(statements=statements, set_aside=set_aside)
