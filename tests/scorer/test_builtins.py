"""Each built-in scorer's `create_*` function is made by the kit's `scorer_factory` from its
class: named from its id, in its package, with its options type and engine choices, building
the scorer with `create_scorer`'s defaults."""

from __future__ import annotations

import importlib
import inspect

import pytest

from offline_recall import DEFAULT_MODEL, FakeEngine
from offline_recall.errors import ConfigurationError
from offline_recall.metrics.precision import (
    ContextPrecisionOptions,
    ContextPrecisionScorer,
    create_context_precision_scorer,
)
from offline_recall.metrics.recall import ContextRecallOptions
from offline_recall.scorer.builtins import BUILTINS, creator_name
from offline_recall.scorer.construction import EngineChoices, scorer_factory
from offline_recall.scorer.registry import SCORERS


@pytest.mark.parametrize("scorer_id", list(BUILTINS))
def test_a_built_in_scorers_create_function_is_made_from_its_class(
    scorer_id: str, fake: FakeEngine
) -> None:
    found = BUILTINS[scorer_id]
    kind = SCORERS[scorer_id]
    package = importlib.import_module(found.module)
    create = getattr(package, creator_name(scorer_id))
    assert (create.__name__, create.__qualname__) == (creator_name(scorer_id),) * 2
    assert create.__module__ == found.module and (create.__doc__ or "").strip()
    choices = "ClaimChoices" if kind.separate_judge else "EngineChoices"
    assert str(inspect.signature(create)) == (
        f"(model: 'str | ModelManifest | Engine' = {DEFAULT_MODEL!r}, "
        f"options: '{kind.options_type.__name__} | None' = None, "
        f"**choices: 'Unpack[{choices}]') -> '{kind.__name__}'"
    )
    built = create(fake, kind.options_type(context=["The tower is in Paris."]))
    assert type(built) is kind and built.engine is fake


def test_the_keywords_reach_create_scorer(fake: FakeEngine) -> None:
    options = ContextPrecisionOptions(context=["The tower is in Paris."])
    with pytest.raises(ConfigurationError, match="cannot be judged by a separate judge"):
        create_context_precision_scorer(fake, options, judge="a-verifier")  # type: ignore[call-arg]


def test_a_factory_refuses_options_the_scorer_does_not_take() -> None:
    with pytest.raises(TypeError, match="takes ContextPrecisionOptions"):
        scorer_factory(ContextPrecisionScorer, ContextRecallOptions, EngineChoices, "doc")
