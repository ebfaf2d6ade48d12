"""Claims of texts: the model under a JSON grammar, the prompt set's rules, a claim cache.

The generation stage of every scorer that judges claims against a context: context recall
extracts them from the ground truth, faithfulness from the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ...engines import Engine, Failed, JsonOutput
from ...text import split_sentences
from ..memo import Memo
from ..pipeline import ClaimCacheLike
from ..results import Progress, ScorerSetup
from ..stages import stage
from .prompts import PromptSet
from .rules import claim_list_type, dedupe_claims, parse_claims, settle_claims, single_claim

EXTRACTIONS_REMEMBERED = 1024


class ClaimExtractor:
    """Extracts texts' claims on `engine`; identical texts are sent to the model once, and
    claims found are kept in `claim_cache` (if any). `noun` names the texts in progress."""

    def __init__(
        self,
        engine: Engine,
        prompts: PromptSet,
        setup: ScorerSetup,
        claim_cache: ClaimCacheLike | None = None,
        *,
        noun: str = "texts",
    ) -> None:
        self.engine = engine
        self.prompts = prompts
        self.setup = setup
        self.claim_cache = claim_cache
        self.noun = noun
        self._claims_type = claim_list_type(setup.max_items)
        self._extractions: Memo[str, list[str] | Failed] = Memo(EXTRACTIONS_REMEMBERED)

    def extract(
        self, texts: Sequence[str], *, progress: Progress | None = None
    ) -> list[list[str] | Failed]:
        """Each text's claims exactly as the scorer extracts a text that fits the model in
        one piece (the prompt set's rules applied, duplicates kept); `progress` is told how
        the extraction goes."""
        found = self.lookup(list(dict.fromkeys(texts)), progress=progress)
        return [found[t] for t in texts]

    def lookup(
        self, texts: Sequence[str], *, progress: Progress | None = None
    ) -> dict[str, list[str] | Failed]:
        """Each distinct text's claims, remembered ones not asked for again."""
        return self._extractions.lookup(list(texts), partial(self._extract, progress=progress))

    @staticmethod
    def claims(
        pieces: Sequence[str], extracted: dict[str, list[str] | Failed]
    ) -> list[str] | Failed:
        """A text's claims over all its pieces, duplicates removed."""
        found: list[list[str]] = []
        for piece in pieces:
            claims = extracted[piece]
            if isinstance(claims, Failed):
                return claims
            found.append(claims)
        return dedupe_claims(claim for f in found for claim in f)

    def _extract(self, texts: list[str], progress: Progress | None) -> list[list[str] | Failed]:
        """Each text's claims: from the claim cache when it has them, else from the engine."""
        fingerprint, version = self.engine.identity.fingerprint, self.setup.prompt_version
        known: dict[str, list[str] | Failed] = {}
        if self.claim_cache is not None:
            known.update(self.claim_cache.get(fingerprint, version, texts))
        missing = [t for t in texts if t not in known]
        if missing:
            per_sentence = self.prompts.extract.per_sentence
            extract = self._extract_by_sentence if per_sentence else self._extract_whole
            fresh = dict(zip(missing, extract(missing, progress), strict=True))
            found = {t: c for t, c in fresh.items() if not isinstance(c, Failed)}
            if found and self.claim_cache is not None:
                self.claim_cache.put(fingerprint, version, found)
            known.update(fresh)
        return [known[t] for t in texts]

    def _extract_whole(
        self, texts: list[str], progress: Progress | None
    ) -> list[list[str] | Failed]:
        """Each text's claims from one generation a text."""
        limit = self.setup.max_new_tokens
        prompts = [self.prompts.extract_prompt(t) for t in texts]
        done = stage(progress, f"{self.noun} extracted", len(texts))
        raw = self.engine.generate_json(prompts, JsonOutput(self._claims_type, limit), done=done)
        rules = self.prompts.extract
        return [
            r
            if isinstance(r, Failed)
            else settle_claims(t, parse_claims(r, self._claims_type, limit), rules)
            for t, r in zip(texts, raw, strict=True)
        ]

    def _extract_by_sentence(
        self, texts: list[str], progress: Progress | None
    ) -> list[list[str] | Failed]:
        """Each text's claims, sentence by sentence: every sentence of the batch is one short,
        bounded generation, sent together, so that no long answer holds the batch back; the
        rules are applied to each sentence's claims, grounded in the whole text. A sentence
        that is one claim already (`single_claim`) stands for itself, with no model call. A
        sentence the engine failed on fails its text: the sentence fallback is for what the
        model wrote, never for an engine's error."""
        rules = self.prompts.extract
        limit = rules.sentence_tokens or self.setup.max_new_tokens
        claims_type = claim_list_type(rules.sentence_claims or self.setup.max_items)
        sentences = {t: split_sentences(t) or [t] for t in texts}
        every = list(dict.fromkeys(s for t in texts for s in sentences[t]))
        single = {
            s
            for s in every
            if rules.single_claim_words and single_claim(s, rules.single_claim_words)
        }
        units = [s for s in every if s not in single]
        prompts = [self.prompts.extract_prompt(s) for s in units]
        done = stage(progress, "sentences extracted", len(units))
        output = JsonOutput(claims_type, limit)
        raw = self.engine.generate_json(prompts, output, done=done) if units else []
        parsed = {
            s: r if isinstance(r, Failed) else parse_claims(r, claims_type, limit)
            for s, r in zip(units, raw, strict=True)
        }
        engine_failed = {s: r for s, r in zip(units, raw, strict=True) if isinstance(r, Failed)}
        out: list[list[str] | Failed] = []
        for text in texts:
            found: list[str] = []
            for sentence in sentences[text]:
                settled = (
                    [sentence]
                    if sentence in single
                    else engine_failed.get(sentence)
                    or settle_claims(sentence, parsed[sentence], rules, source=text)
                )
                if isinstance(settled, Failed):
                    out.append(settled)
                    break
                found += settled
            else:
                out.append(found)
        return out
