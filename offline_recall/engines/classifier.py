"""A classifier verifier: a cross-encoder that reads (evidence, statement) pairs and gives the
probability of its supported label (an NLI model's entailment), on transformers or on vLLM's
pooling runner (architectures vLLM serves as classifiers: RoBERTa, BERT; not DeBERTa-v2).

It judges only: it has no chat template and writes no text, so claim extraction comes from a
chat model (a run names it as the judge model beside the extraction model). A pair's texts
are the prompt's `fields` (evidence first, then statement), not its rendered messages; the
evidence is cut when a pair is longer than the classifier takes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, cast

from ..errors import MissingExtraError, ModelError
from .base import Done, EngineIdentity, Failed, JsonOutput, Prompt
from .manifests import ModelManifest
from .transformers import TransformersOptions
from .weights import PINNED_LOADING, model_dir, quiet_loading

NO_TEXT = "a classifier verifier writes no text: name a chat model for claim extraction"
NOT_A_PAIR = "a classifier judges (evidence, statement) pairs; this prompt is not one"


def answer_values(answers: Sequence[str], p_supported: float) -> tuple[float, ...] | Failed:
    """The probability of each answer word from P(supported): yes gets it, no the rest."""
    found = []
    for word in answers:
        key = word.strip().lower()
        if key == "yes":
            found.append(p_supported)
        elif key == "no":
            found.append(1.0 - p_supported)
        else:
            return Failed(f"a classifier answers yes or no, not {word!r}")
    return tuple(found)


class _ClassifierEngine:
    """What both classifier engines share: their identity, token counts, and no text."""

    _identity: EngineIdentity
    _tokenizer: Any

    @property
    def identity(self) -> EngineIdentity:
        return self._identity

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        if done is not None:
            done(len(prompts))
        return [Failed(NO_TEXT) for _ in prompts]


class TransformersClassifierEngine(_ClassifierEngine):
    """Runs a pinned sequence classifier with transformers, one pair at a time."""

    def __init__(self, manifest: ModelManifest, options: TransformersOptions | None = None) -> None:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as e:
            raise MissingExtraError(str(e.name), "pip install offline-recall") from e
        if manifest.classifier is None:
            raise ModelError(f"{manifest.name} is not a classifier verifier")
        self.options = options or TransformersOptions()
        if self.options.threads is not None:
            torch.set_num_threads(self.options.threads)
        self.head = manifest.classifier
        folder = model_dir(manifest)
        self._tokenizer: Any = cast(
            Any,
            AutoTokenizer.from_pretrained(folder, **PINNED_LOADING),
        )
        with quiet_loading():
            model = AutoModelForSequenceClassification.from_pretrained(
                folder,
                **PINNED_LOADING,
                use_safetensors=True,
                dtype=getattr(torch, self.options.dtype),
            )
        self._model: Any = cast(Any, model).to(self.options.device).eval()
        labels = {str(v): int(k) for k, v in self._model.config.id2label.items()}
        if self.head.supported_label not in labels:
            raise ModelError(
                f"{manifest.name} has no label {self.head.supported_label!r}; "
                f"it has {', '.join(labels)}"
            )
        self._label = labels[self.head.supported_label]
        self._identity = manifest.engine_identity(
            "transformers", self.options.dtype, self.head.max_length
        )

    def close(self) -> None:
        """Nothing to stop: the model lives in this process."""

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens of the prompt's pair, special tokens included (the classifier's whole input);
        a prompt that is no pair counts as its messages' texts in one sequence."""
        if prompt.pair is not None:
            evidence, statement = prompt.pair
            return len(self._encode(evidence, statement, truncate=False)["input_ids"][0])
        text = "\n".join(m["content"] for m in prompt.messages)
        return len(self._tokenizer(text)["input_ids"])

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        """P(supported label) over the classifier's labels, as the yes answer (no: the rest)."""
        import torch

        found: list[tuple[float, ...] | Failed] = []
        with torch.inference_mode():
            for prompt in prompts:
                if prompt.pair is None:
                    found.append(Failed(NOT_A_PAIR))
                else:
                    inputs = self._encode(*prompt.pair, truncate=True)
                    logits = self._model(**inputs.to(self.options.device)).logits[0].float()
                    p = float(torch.softmax(logits, dim=-1)[self._label])
                    found.append(answer_values(answers, p))
                if done is not None:
                    done(1)
        return found

    def _encode(self, evidence: str, statement: str, *, truncate: bool) -> Any:
        first_evidence = self.head.pair_order == "evidence-first"
        pair = (evidence, statement) if first_evidence else (statement, evidence)
        return self._tokenizer(
            *pair,
            truncation=("only_first" if first_evidence else "only_second") if truncate else False,
            max_length=self.head.max_length if truncate else None,
            return_tensors="pt",
        )


class VLLMClassifierEngine(_ClassifierEngine):
    """Runs a pinned sequence classifier with vLLM's pooling runner, a batch at a time: each
    pair is tokenized here as transformers tokenizes it, so both engines see the same ids."""

    def __init__(self, manifest: ModelManifest, options: Any = None) -> None:
        from .vllm import INSTALL, VLLMOptions, _all_cpus, _on_cpu

        try:
            from vllm import LLM
        except ImportError as e:
            raise MissingExtraError("vllm", INSTALL) from e
        if manifest.classifier is None:
            raise ModelError(f"{manifest.name} is not a classifier verifier")
        self.options: VLLMOptions = options or VLLMOptions()
        self.head = manifest.classifier
        folder = model_dir(manifest)
        on_cpu = _on_cpu()
        if on_cpu:
            os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
            os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", _all_cpus())
        with quiet_loading():
            self._llm = LLM(
                model=str(folder),
                tokenizer=str(folder),
                runner="pooling",
                trust_remote_code=False,
                dtype=self.options.dtype,
                seed=0,
                max_model_len=self.head.max_length,
                enforce_eager=on_cpu,
            )
        self._tokenizer: Any = cast(Any, self._llm.get_tokenizer())
        config: Any = self._llm.llm_engine.model_config.hf_config
        labels = {str(v): int(k) for k, v in config.id2label.items()}
        if self.head.supported_label not in labels:
            raise ModelError(f"{manifest.name} has no label {self.head.supported_label!r}")
        self._label = labels[self.head.supported_label]
        self._identity = manifest.engine_identity("vllm", self.options.dtype, self.head.max_length)

    def close(self) -> None:
        """Stop the engine's processes now rather than when the interpreter exits."""
        self._llm.llm_engine.engine_core.shutdown()

    def prompt_tokens(self, prompt: Prompt) -> int:
        if prompt.pair is not None:
            return len(self._ids(*prompt.pair, truncate=False))
        return len(self._tokenizer("\n".join(m["content"] for m in prompt.messages))["input_ids"])

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        """P(supported label) over the classifier's labels, as the yes answer (no: the rest)."""
        from vllm.inputs import TokensPrompt

        pairs = [(i, p.pair) for i, p in enumerate(prompts) if p.pair is not None]
        inputs = [TokensPrompt(prompt_token_ids=self._ids(*pair)) for _, pair in pairs]
        outputs = self._llm.classify(inputs, use_tqdm=False) if inputs else []
        found: list[tuple[float, ...] | Failed] = [Failed(NOT_A_PAIR)] * len(prompts)
        for (i, _), output in zip(pairs, outputs, strict=True):
            found[i] = answer_values(answers, float(output.outputs.probs[self._label]))
        if done is not None:
            done(len(prompts))
        return found

    def _ids(self, evidence: str, statement: str, *, truncate: bool = True) -> list[int]:
        first_evidence = self.head.pair_order == "evidence-first"
        pair = (evidence, statement) if first_evidence else (statement, evidence)
        encoded = self._tokenizer(
            *pair,
            truncation=("only_first" if first_evidence else "only_second") if truncate else False,
            max_length=self.head.max_length if truncate else None,
        )
        return list(encoded["input_ids"])
