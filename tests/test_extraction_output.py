"""Reading the constrained extraction output of the transformers backend."""

from __future__ import annotations

from offline_recall.backends.claims import finished_claims


def test_a_claim_list_cut_off_mid_claim_keeps_the_finished_claims() -> None:
    cut = '{"claims": ["Paris is in France.", "It is old.", "It is big, big, big, bi'
    assert finished_claims(cut) == ["Paris is in France.", "It is old."]


def test_nothing_finished_is_nothing() -> None:
    assert finished_claims('{"claims": ["never finish') == []
    assert finished_claims('{"claims"') == []


def test_a_complete_list_reads_whole() -> None:
    assert finished_claims('{"claims" : [ "x" ,"y"]}') == ["x", "y"]
