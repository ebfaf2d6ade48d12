"""Greedy decoding under a grammar, several tokens a forward pass where the prompt predicts them.

On a CPU a small model's step is bound by reading its weights, so a forward pass over eight
tokens costs about what one token does. A claim list mostly copies its sentence and the
example answer's JSON, so the tokens that follow the last few generated ones in the prompt are
a good guess at what comes next (prompt lookup). The guess is checked in one forward pass: each
guessed token is kept while it is exactly the greedy, grammar-allowed choice after the tokens
before it, so the text is greedy decoding's; the first differing choice is kept too and the
rest is dropped from the cache. Everything depends on the prompt alone, never on other
prompts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import torch

NGRAM = 3
"""How many of the last tokens are looked up in the prompt (fewer where they are not found)."""


def lookup_guess(tokens: list[int], size: int) -> list[int]:
    """Up to `size` tokens that followed the latest earlier occurrence of the sequence's last
    few tokens (the prompt and what is written so far); none where they occur nowhere."""
    if size <= 0:
        return []
    for n in range(min(NGRAM, len(tokens) - 1), 0, -1):
        tail = tokens[-n:]
        for start in range(len(tokens) - n - 1, -1, -1):
            if tokens[start : start + n] == tail:
                return tokens[start + n : start + n + size]
    return []


class Head(NamedTuple):
    """A start of several prompts computed once: its keys and values, and how many tokens."""

    cache: Any
    length: int


def head_of(model: Any, ids: list[int], device: str) -> Head:
    """The keys and values of `ids`, computed once for every prompt that starts with them."""
    import torch

    with torch.inference_mode():
        out = model(input_ids=torch.tensor([ids], device=device), use_cache=True)
    return Head(out.past_key_values, len(ids))


def greedy_constrained(
    model: Any,
    ids: list[int],
    index: Any,
    eos: frozenset[int],
    max_tokens: int,
    guess: int,
    device: str,
    head: Head | None = None,
) -> list[int]:
    """The tokens greedy decoding writes after `ids` under the grammar `index` (an Outlines
    core index), at most `max_tokens`, ending at an end token (`eos`); `guess` tokens are
    guessed a pass. With a `head` (the keys and values of the start of `ids`), only the rest
    of the prompt is computed, and the head's cache is left as it was given."""
    import torch
    from outlines_core import Guide
    from outlines_core.kernels.torch import allocate_token_bitmask, fill_next_token_bitmask

    guide = Guide(index)
    bitmask: torch.Tensor | None = None
    bits = torch.arange(32, dtype=torch.int32)

    def choose(logits: torch.Tensor) -> int:
        """The grammar-allowed token of highest logit (the first of equals, as argmax)."""
        nonlocal bitmask
        if bitmask is None:
            bitmask = allocate_token_bitmask(logits.shape[-1])
        fill_next_token_bitmask(guide, bitmask)
        # The packed mask unpacked to one flag a token (bit i of word w: token 32 * w + i),
        # in plain torch: Outlines' own kernel is compiled by torch.compile on first use.
        allowed = ((bitmask[0].unsqueeze(-1) >> bits) & 1).bool().view(-1)
        n = min(allowed.shape[0], logits.shape[-1])
        scores = torch.full((logits.shape[-1],), -torch.inf, device=logits.device)
        scores[:n] = torch.where(allowed[:n].to(logits.device), logits[:n].float(), -torch.inf)
        return int(torch.argmax(scores))

    def advance(token: int) -> None:
        if not guide.is_finished() or guide.accepts_tokens([token]):
            guide.advance(token_id=token, return_tokens=False)

    tokens = list(ids)
    written: list[int] = []
    skip = 0 if head is None else head.length
    with torch.inference_mode():
        prompt = torch.tensor([ids[skip:]], device=device)
        cache = None if head is None else head.cache
        out = model(input_ids=prompt, past_key_values=cache, use_cache=True)
        cache, logits = out.past_key_values, out.logits[0, -1:]
        try:
            while True:
                token = choose(logits[-1])
                written.append(token)
                tokens.append(token)
                if token in eos or len(written) >= max_tokens:
                    return written
                advance(token)
                guessed = lookup_guess(tokens, min(guess, max_tokens - len(written)))
                step = torch.tensor([[token, *guessed]], device=device)
                logits = model(input_ids=step, past_key_values=cache, use_cache=True).logits[0]
                kept = _kept(guessed, logits, choose, advance, eos)
                written += guessed[:kept]
                tokens += guessed[:kept]
                if kept < len(guessed):
                    cache.crop(kept - len(guessed))
                if written[-1] in eos or len(written) >= max_tokens:
                    return written
                logits = logits[kept : kept + 1]
        finally:
            if head is not None and (extra := head.cache.get_seq_length() - head.length) > 0:
                head.cache.crop(-extra)  # back to the head alone for the next prompt


def _kept(
    guessed: list[int], logits: torch.Tensor, choose: Any, advance: Any, eos: frozenset[int]
) -> int:
    """How many guessed tokens are greedy's own choices, in order, up to the end token; the
    guide advances over them."""
    for i, token in enumerate(guessed):
        if choose(logits[i]) != token:
            return i
        if token in eos:
            return i + 1
        advance(token)
    return len(guessed)
