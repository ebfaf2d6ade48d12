"""The model server you already run, as an engine: any OpenAI-compatible server.

Prompts are rendered with the pinned model's chat template, as the local engines render them,
and sent to the server's completions endpoint (as token ids where the server takes them), so
the server computes what a local engine would; `endpoint = "chat"` sends the messages to chat
completions instead, rendered by the server's own template. Claim lists come from the server's
structured outputs under the JSON schema; a yes/no answer from one token under a choice of the
answers, with its top log-probabilities, renormalised here over the answers.

What the server can constrain is found out at start, by probes whose answers an unconstrained
model would not give: a server that cannot constrain is refused, never guessed around. The
verdict is remembered for that server (probed.py), so a later run against it asks only what it
serves before scoring.
"""

from __future__ import annotations

import math
import reprlib
import sys
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import ConfigurationError
from ..printable import printable
from ..urls import credentials_in
from .base import Done, Failed, JsonOutput, Prompt
from .chat import ChatTemplate, PinnedEngine
from .dialects import DIALECTS, Dialect, Fields
from .manifests import ModelManifest
from .probed import ProbedServers, ServerIdentity
from .served import Check, ServedModel, inspect_served
from .server import MAX_ANSWER_MIB, Server, refused_credentials
from .weights import model_dir

PROBE_JSON = '{"probe":"ok"}'
"""The only text the probe's schema allows: no model says it of itself when asked to say hello."""


class OpenAIOptions(BaseModel):
    """How to reach the server. Where it is and how fast to ask it do not change a result."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    RUNTIME: ClassVar[frozenset[str]] = frozenset(
        {
            "base_url",
            "served_model",
            "api_key_env",
            "concurrency",
            "timeout",
            "retries",
            "max_answer_mib",
        }
    )

    base_url: str = Field(description="The server's OpenAI API root, e.g. http://host:8000/v1")
    served_model: str | None = Field(
        default=None, description="The model id to ask for; default: the server's only model"
    )
    endpoint: Literal["completions", "chat"] = Field(
        default="completions",
        description="completions: prompts rendered here with the pinned chat template; "
        "chat: messages rendered by the server's template",
    )
    check: Check = Field(
        default="files",
        description="files: the served weights must hash to the pins; none: trust the server",
    )
    api_key_env: str | None = Field(
        default=None, description="The environment variable holding the server's API key"
    )
    concurrency: int = Field(default=64, ge=1, le=1024, description="Requests in flight at once")
    timeout: float = Field(
        default=600.0,
        gt=0,
        allow_inf_nan=False,
        description="Seconds a request may take, from connecting to its answer's last byte",
    )
    retries: int = Field(default=4, ge=0, le=10, description="Retries of a failed request")
    max_answer_mib: float = Field(
        default=MAX_ANSWER_MIB,
        gt=0,
        le=1024,
        description="Mebibytes of one answer read at most; a longer one is the row's error",
    )

    @field_validator("base_url")
    @classmethod
    def _http(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://, e.g. http://127.0.0.1:8000/v1")
        if found := credentials_in(url):
            raise ValueError(refused_credentials(found))
        return url.rstrip("/")

    def server(self) -> Server:
        return Server.at(
            self.base_url,
            api_key_env=self.api_key_env,
            timeout=self.timeout,
            retries=self.retries,
            concurrency=self.concurrency,
            max_answer_mib=self.max_answer_mib,
        )


def served_model(manifest: ModelManifest, options: OpenAIOptions) -> ServedModel:
    """What the server serves, checked against the manifest (one request to the server)."""
    return inspect_served(options.server(), manifest, options.served_model, options.check)


class OpenAIEngine(PinnedEngine):
    """A pinned model served by an OpenAI-compatible server, asked concurrently over HTTP.

    `served` is what the server already said it serves (see `served_model`), when a run has
    asked it; without it the server is asked here.
    """

    def __init__(
        self, manifest: ModelManifest, options: OpenAIOptions, served: ServedModel | None = None
    ) -> None:
        from transformers import AutoTokenizer

        self.options = options
        self.server = options.server()
        self.served = served or served_model(manifest, options)
        # The tokenizer alone, to render and count tokens as the local engines do.
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir(manifest)))
        super().__init__("openai", manifest, ChatTemplate(tokenizer, manifest), "as served")
        window = min(manifest.context_window, self.served.max_model_len or manifest.context_window)
        self._identity = self.identity.model_copy(
            update={"fingerprint": self.served.fingerprint(manifest), "context_window": window}
        )
        probed = ProbedServers()
        server = ServerIdentity.of(self.server.base_url, options.endpoint, self.served, manifest)
        remembered = probed.dialect(server)
        if remembered is None:
            self.dialect = self._probe()
            probed.remember(server, self.dialect)
        else:
            self.dialect = remembered

    def close(self) -> None:
        """Nothing is held between calls: each call opens and closes its own connections."""

    # Requests ---------------------------------------------------------------------------

    @property
    def _path(self) -> str:
        return "/completions" if self.options.endpoint == "completions" else "/chat/completions"

    def _body(
        self, prompt: Prompt, max_tokens: int, fields: Fields, top: int | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.served.id,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "seed": 0,
            **fields,
        }
        chat = self.options.endpoint == "chat"
        if chat:
            body["messages"] = [dict(m) for m in prompt.messages]
        elif self.dialect.token_ids:
            body["prompt"] = self.chat.ids(prompt)
        else:
            body["prompt"] = self.chat.render(prompt)
        if top is not None:
            body.update({"logprobs": True, "top_logprobs": top} if chat else {"logprobs": top})
        return body

    def _text(self, answer: dict[str, Any]) -> str:
        choice = answer["choices"][0]
        text = choice["text"] if self.options.endpoint == "completions" else None
        text = text if text is not None else choice.get("message", {}).get("content")
        if not isinstance(text, str):
            raise TypeError("no text in choices[0]")
        return text

    def _top(self, answer: dict[str, Any]) -> dict[str, float]:
        """The first answer token's top log-probabilities, by token text."""
        logprobs = answer["choices"][0]["logprobs"]
        if self.options.endpoint == "completions":
            return {str(k): logprob(v) for k, v in logprobs["top_logprobs"][0].items()}
        first = logprobs["content"][0]["top_logprobs"]
        return {str(t["token"]): logprob(t["logprob"]) for t in first}

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        fields = self.dialect.json(output.schema.model_json_schema())
        bodies = [self._body(p, output.max_tokens, fields) for p in prompts]
        return [
            a if isinstance(a, Failed) else _read(a, self._text)
            for a in self.server.post_all(self._path, bodies, done)
        ]

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        """One token under a choice of the answers; prompts sharing a head are sent after one
        of them has put the head in the server's prefix cache."""
        fields = self._choice(answers)
        bodies = [self._body(p, 1, fields, self.dialect.top_logprobs) for p in prompts]
        first, rest = _waves(self.chat, prompts)
        found = self.server.post_waves(
            self._path, [[bodies[i] for i in first], [bodies[i] for i in rest]], done
        )
        out: list[tuple[float, ...] | Failed] = [Failed("not computed")] * len(prompts)
        for i, answer in zip([*first, *rest], [*found[0], *found[1]], strict=True):
            out[i] = (
                answer
                if isinstance(answer, Failed)
                else _read(answer, lambda a: _renormalised(self._top(a), answers))
            )
        return out

    def _choice(self, answers: Sequence[str]) -> Fields:
        # Each answer must be one token: its probability is read off one position.
        return self.dialect.choice(answers, [self.chat.answer_token(a) for a in answers])

    # Capabilities -----------------------------------------------------------------------

    def _probe(self) -> Dialect:
        """The first dialect whose constraints the server honours; else a one-line refusal
        naming what it lacks."""
        question = Prompt(({"role": "user", "content": "Say hello."},))
        schema = {
            "type": "object",
            "properties": {"probe": {"type": "string", "enum": ["ok"]}},
            "required": ["probe"],
        }
        answers = ("yes", "no")
        lacking: list[str] = []
        for dialect in DIALECTS:
            if not dialect.fits(self.served.owned_by):
                continue
            self.dialect = dialect
            got = self.server.post_all(
                self._path,
                [
                    self._body(question, 24, dialect.json(schema)),
                    self._body(question, 1, self._choice(answers), dialect.top_logprobs),
                ],
            )
            json_ok = _read(got[0], lambda a: _follows(self._text(a), PROBE_JSON))
            choice_ok = _read(got[1], lambda a: _chose(self._text(a), self._top(a), answers))
            if json_ok is True and choice_ok is True:
                return dialect
            lacking.append(
                f"{dialect.name}: "
                + ("no JSON-schema output" if json_ok is not True else "no constrained choice")
            )
        raise ConfigurationError(
            f"the model server at {self.server.base_url} ({self.served.owned_by or 'unknown'}) "
            f"cannot constrain its {self.options.endpoint} output as this engine needs "
            f"({'; '.join(lacking) or 'no known dialect'}); serve the model with vLLM or llama.cpp"
        )


def _follows(text: str, wanted: str) -> bool:
    """Whether `text`, whitespace aside, is `wanted` or a start of it (a text cut off by the
    token limit) long enough to tell: what a constrained answer to the probe looks like."""
    bare = "".join(text.split())
    return len(bare) >= len(wanted) // 2 and wanted.startswith(bare)


def _chose(text: str, top: dict[str, float], answers: Sequence[str]) -> bool:
    """Whether one token of a constrained choice was given (an answer or its start), with
    top log-probabilities."""
    return bool(text) and bool(top) and any(a.startswith(text) for a in answers)


class Malformed(ValueError):
    """A value in a server's answer that cannot be what its field holds, and why."""


LOGPROB_SLACK = 1e-4
"""How far above 0 a log-probability may be and still be read, as 0: a server's rounding of a
probability of 1."""


def logprob(value: Any) -> float:
    """A log-probability as a server gives it: a number (true and false are none), not NaN, at
    most 0 (`-inf` is a probability of 0); `Malformed` saying why otherwise."""
    shown = printable(reprlib.repr(value), 40)  # bounded before it is written out
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Malformed(f"a log-probability is {shown}, not a number")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond every float
        number = math.nan
    if math.isnan(number) or number > LOGPROB_SLACK:
        raise Malformed(f"a log-probability is {shown}; it must be a number at most 0")
    return min(number, 0.0)


def _read(answer: dict[str, Any] | Failed, read: Any) -> Any:
    """`read(answer)`, or the answer's failure; a response of the wrong shape is a failure."""
    if isinstance(answer, Failed):
        return answer
    try:
        return read(answer)
    except Malformed as e:
        return Failed(f"malformed response from the server: {e}")
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        return Failed(f"malformed response from the server ({type(e).__name__}: {e})")


def _renormalised(top: dict[str, float], answers: Sequence[str]) -> tuple[float, ...] | Failed:
    """The answers' probabilities over the answers alone. Every answer must be listed: one
    left out has an unknown probability, not 0. Log-probabilities too small for their
    probabilities to be told apart as floats are compared with the largest one's (so two equal
    ones are 0.5 each, however small)."""
    missing = [a for a in answers if a not in top]
    if missing:
        return Failed(f"the server left {', '.join(missing)} out of its top log-probabilities")
    found = [top[a] for a in answers]
    best = max(found)
    if best == -math.inf:
        return Failed("the server gave every answer a log-probability of -inf")
    raw = [math.exp(v) for v in found]
    total = sum(raw)
    if total < sys.float_info.min:
        raw = [math.exp(v - best) for v in found]
        total = sum(raw)
    return tuple(p / total for p in raw)


def _waves(chat: ChatTemplate, prompts: Sequence[Prompt]) -> tuple[list[int], list[int]]:
    """Prompt indices in two waves: one prompt per shared head first, then the rest; each
    wave in token order, so that prompts sharing a head are asked together."""
    split = [chat.split(p) for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: split[i][0])
    first: list[int] = []
    rest: list[int] = []
    seen: set[tuple[int, ...]] = set()
    for i in order:
        ids, head = split[i]
        key = tuple(ids[:head])
        if head and key in seen:
            rest.append(i)
        else:
            seen.add(key)
            first.append(i)
    return first, rest
