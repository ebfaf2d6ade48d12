"""How each kind of server is asked to constrain its output: the fields a request carries.

vLLM takes `structured_outputs` (a JSON schema, a choice) and prompts as token ids; llama.cpp's
servers take a GBNF `grammar`; any other OpenAI-compatible server is asked in the OpenAI API's
own terms: `response_format` with a JSON schema, and the choice as an equal `logit_bias` on the
answers' tokens (equal biases leave their ratio, which is all that is read, unchanged). The
engine probes the dialects in this order and keeps the first the server honours.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .gbnf import choice_grammar, schema_grammar

Fields = dict[str, Any]


@dataclass(frozen=True)
class Dialect:
    """A kind of server: how it is asked for JSON and for a choice of answer tokens."""

    name: str
    json: Callable[[dict[str, Any]], Fields]
    choice: Callable[[Sequence[str], Sequence[int]], Fields]
    """The fields that restrict one token to the answers (their words and token ids)."""
    top_logprobs: int = 20
    """Log-probabilities asked for the answer token. vLLM lists them after the choice's mask
    (the few tokens it allows); llama.cpp lists the unmasked ones, so the answers may rank lower."""
    token_ids: bool = False
    """Prompts go to the completions endpoint as token ids rather than text."""
    owners: frozenset[str] | None = None
    """The `owned_by` values of `/v1/models` this dialect is tried for; None: any server."""

    def fits(self, owned_by: str | None) -> bool:
        return self.owners is None or owned_by in self.owners


VLLM = Dialect(
    "vllm",
    json=lambda schema: {"structured_outputs": {"json": schema, "disable_any_whitespace": True}},
    choice=lambda words, ids: {"structured_outputs": {"choice": list(words)}},
    top_logprobs=5,
    token_ids=True,
    owners=frozenset({"vllm"}),
)
LLAMA_CPP = Dialect(
    "llama.cpp",
    json=lambda schema: {"grammar": schema_grammar(schema)},
    choice=lambda words, ids: {"grammar": choice_grammar(list(words))},
    top_logprobs=100,
)
OPENAI = Dialect(
    "openai",
    json=lambda schema: {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": schema, "strict": True},
        }
    },
    choice=lambda words, ids: {"logit_bias": {str(i): 100 for i in ids}},
)
DIALECTS = (VLLM, LLAMA_CPP, OPENAI)


def dialects_digest() -> str:
    """The sha256 of what the dialects ask a server, in the order they are probed: a verdict
    remembered for a server (see `probed.py`) holds only while this table is the same."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    table = [
        {
            "name": d.name,
            "json": d.json(schema),
            "choice": d.choice(("yes", "no"), (1, 2)),
            "top_logprobs": d.top_logprobs,
            "token_ids": d.token_ids,
            "owners": None if d.owners is None else sorted(d.owners),
        }
        for d in DIALECTS
    ]
    return hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()
