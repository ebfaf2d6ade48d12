"""The scorers this package ships: one entry each, with what is public about it.

An entry (`Builtin`) names the scorer's class (imported the first time it is asked for: the
registry, registry.py, maps each id to it) and what is public about it: `offline_recall`
exports its `create_*` function and its entry's `exports`, and the Mastra module
(`integrations/mastra/`) offers it under its entry's `mastra` export. A scorer is listed here
and nowhere else: `scripts/builtin_scorers.py` writes from these entries the Mastra module's
scorer table and exports and the imports that show type checkers the public names, and, as
the site builds, the documentation's scorer pages and API reference entries. This module
imports nothing of the package, so `import offline_recall` reads its public names here at no
cost.
"""

from __future__ import annotations

from typing import NamedTuple


class MastraExport(NamedTuple):
    """A built-in scorer as the Mastra module offers it."""

    function: str
    """Its `create*Scorer` export: "createContextRecallScorer"."""
    description: str
    """What Mastra shows of it, in a line (the module adds "(offline-recall)")."""
    reference: str | None = None
    """Mastra's own function, where its name is not `function`."""


class Builtin(NamedTuple):
    """A scorer this package ships: where its class is, and what is public about it."""

    target: str
    """Its class, "package:Class"; the package defines its `create_*` function and `exports`."""
    exports: tuple[str, ...] = ()
    """What `offline_recall` exports from its package besides its `create_*` function (its
    options and result types), in the order the API reference lists them."""
    mastra: MastraExport | None = None
    """Its export in the Mastra module; None where Mastra has no such scorer."""

    @property
    def module(self) -> str:
        """Its package: where its class, its `create_*` function and its `exports` are."""
        return self.target.partition(":")[0]


RECALL = "context-recall-scorer"
"""Context recall's id: the scorer a run uses when it names none."""

BUILTINS: dict[str, Builtin] = {
    RECALL: Builtin(
        "offline_recall.metrics.recall:ContextRecallScorer",
        ("ContextRecallOptions", "RecallResult", "ClaimVerdict"),
        MastraExport(
            "createContextRecallScorer",
            "How much of the ground truth the retrieved context supports",
        ),
    ),
    "context-precision-scorer": Builtin(
        "offline_recall.metrics.precision:ContextPrecisionScorer",
        ("ContextPrecisionOptions", "PrecisionResult", "ChunkVerdict"),
        MastraExport(
            "createContextPrecisionScorer",
            "Whether the relevant context chunks are ranked first",
        ),
    ),
    "faithfulness-scorer": Builtin(
        "offline_recall.metrics.faithfulness:FaithfulnessScorer",
        ("FaithfulnessOptions", "FaithfulnessResult"),
        MastraExport(
            "createFaithfulnessScorer",
            "How much of the output the retrieved context supports",
        ),
    ),
    "context-relevance-scorer": Builtin(
        "offline_recall.metrics.relevance:ContextRelevanceScorer",
        ("ContextRelevanceOptions", "Penalties", "RelevanceResult", "ChunkRelevance"),
        MastraExport(
            "createContextRelevanceScorer",
            "How relevant the context is to the question and the response",
            reference="createContextRelevanceScorerLLM",
        ),
    ),
}
"""The scorers this package ships, by id, in the order they are listed."""


def creator_name(scorer_id: str) -> str:
    """The name of a built-in scorer's `create_*` function: "create_context_recall_scorer"."""
    return "create_" + scorer_id.replace("-", "_")


def public_names() -> dict[str, str]:
    """What `offline_recall` exports of the built-in scorers (each one's `create_*` function
    and its entry's `exports`), each name with the package it is imported from."""
    return {
        name: found.module
        for scorer_id, found in BUILTINS.items()
        for name in (creator_name(scorer_id), *found.exports)
    }


__all__ = ["BUILTINS", "RECALL", "Builtin", "MastraExport", "creator_name", "public_names"]
