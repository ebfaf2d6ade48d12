"""Greedy decoding with tokens guessed from the prompt: the guesses, and on the real embedded
model the same text as transformers' own greedy generation under Outlines' processor."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall.engines import Engine
from offline_recall.engines.lookup_decoding import greedy_constrained, head_of, lookup_guess
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import claim_list_type


def test_the_guess_is_what_followed_the_latest_occurrence_of_the_last_tokens() -> None:
    tokens = [7, 1, 2, 3, 9, 1, 2, 4, 5, 6, 1, 2]
    assert lookup_guess(tokens, 3) == [4, 5, 6]  # [1, 2] last seen before 4
    assert lookup_guess(tokens, 1) == [4]
    assert lookup_guess(tokens, 0) == []


def test_the_longest_matching_tail_wins_and_a_guess_stops_at_the_end() -> None:
    tokens = [5, 6, 8, 0, 6, 8, 1, 2, 5, 6, 8]
    assert lookup_guess(tokens, 4) == [0, 6, 8, 1]  # [5, 6, 8] matches at the start
    assert lookup_guess([1, 2, 3, 1], 5) == [2, 3, 1]


def test_nothing_is_guessed_where_the_last_token_never_occurred_before() -> None:
    assert lookup_guess([1, 2, 3, 4], 8) == []
    assert lookup_guess([4], 8) == []


SENTENCES = (
    "Marie Curie was a Polish physicist who won two Nobel Prizes in 1903 and 1911.",
    "The committee postponed the vote until Friday because two members were ill.",
    "서울은 대한민국의 수도이며 인구는 약 천만 명이다.",
)


@pytest.mark.model
@pytest.mark.parametrize(("max_tokens", "guesses"), [(160, (0, 8)), (17, (3, 8))])
def test_guessed_tokens_write_what_greedy_generation_writes(
    embedded: Engine, max_tokens: int, guesses: tuple[int, ...]
) -> None:
    """Transformers' `generate` under Outlines' logits processor, one token a pass, is the
    reference; guessing tokens a pass, or none, writes the same tokens, a cut answer too, and so
    does each prompt after the instructions' head computed once for all of them."""
    import torch
    from transformers import LogitsProcessorList

    bare: Any = embedded
    prompts = load_prompts("v4")
    grammar = bare._grammar(claim_list_type(6))
    processor = _processor(bare, claim_list_type(6))
    eos = bare._end_tokens
    head = None
    for sentence in SENTENCES:
        ids, shared = bare.chat.split(prompts.extract_prompt(sentence))
        head = head or head_of(bare.model, ids[:shared], "cpu")
        assert shared == head.length > 100
        processor.reset()
        inputs = torch.tensor([ids])
        reference = bare.model.generate(
            input_ids=inputs,
            attention_mask=torch.ones_like(inputs),
            logits_processor=LogitsProcessorList([processor]),
            max_new_tokens=max_tokens,
            do_sample=False,
        )[0][len(ids) :].tolist()
        for guess in guesses:
            written = greedy_constrained(bare.model, ids, grammar, eos, max_tokens, guess, "cpu")
            assert written == reference, (sentence, guess)
        after_head = greedy_constrained(bare.model, ids, grammar, eos, max_tokens, 8, "cpu", head)
        assert after_head == reference, (sentence, "head")
        assert head.cache.get_seq_length() == head.length  # left as it was given


def _processor(bare: Any, output_type: Any) -> Any:
    from outlines.generator import SteerableGenerator

    return SteerableGenerator(bare._outlines_model, output_type).logits_processor
