"""`score`: a dataset in (a file, rows or a DataFrame), its records and summaries out.

The one call that scores a dataset, from Python and behind `offline-recall score`: the input is
read and checked, the run resolved, its rows scored by the local runner into a run store (or on
Ray into a folder of shards), resuming what the store holds, and the results written. The
command line takes the same steps through `plan.RunPlan`, printing between them.

What scores items rather than a file (`serve`, `verify`, a Ray worker, the benchmarks) takes
the same run through the same door: `resolve` makes it of the same options, `session` starts
its engines and builds its scorers, the one place either is done.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..engines import AUTO
from ..engines.manifests import DEFAULT_MODEL
from ..errors import ConfigurationError
from ..scorer.registry import RECALL
from .dataset_scores import DatasetScores
from .plan import Progress, RunPlan, ScoreOptions
from .session import resolve as resolve
from .session import session as session

if TYPE_CHECKING:
    import pandas

    from .claim_cache import ClaimCache
    from .ray_workers import RayOptions


def score(
    data: str | os.PathLike[str] | Sequence[Mapping[str, Any]] | pandas.DataFrame,
    *,
    scorers: str | Sequence[str] = RECALL,
    model: str = DEFAULT_MODEL,
    backend: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    scale: float = 1.0,
    judge_model: str | None = None,
    judge_backend: str | None = None,
    map: Mapping[str, str] | None = None,
    context_sep: str | None = None,
    delimiter: str | None = None,
    out: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    resume: bool = True,
    cache: bool | ClaimCache = True,
    runner: Literal["local", "ray"] = "local",
    ray: RayOptions | None = None,
    shards: str | os.PathLike[str] | None = None,
    merge: bool = True,
    progress: Progress | None = None,
) -> DatasetScores:
    """Score a dataset with one or more scorers in one pass: what `offline-recall score` does,
    with the same options under the same names, and the same records byte for byte.

    `data` is a file (.jsonl, .ndjson, .json, .csv or .parquet), a list of rows (dicts), or a
    pandas DataFrame (one row per item; a missing cell is left out of its row). Field names of
    Mastra (`groundTruth`), RAGAS (`user_input`, `reference`, `retrieved_contexts`,
    `response`, or `question`, `ground_truth`, `contexts`, `answer`) and offline-recall
    (`ground_truth`, `context`) are detected; `map` names any other column
    (`{"context": "chunks"}`, as `--map context=chunks`). Rows given in memory are written as
    JSON Lines first, one a line in their order (a row's `line` is its position from 1): to
    `<out>.input.jsonl` beside `out`, which the manifest names and a later run resumes from, or
    to a temporary folder, removed when the run ends, when there is no `out`.

    `scorers` are scorer ids (`offline-recall scorers` lists them; comma-separated in one
    string, or a list). `model` is a bundled model's name or a manifest path, run by `backend`
    (`auto`, `fake`, `transformers`, `vllm`, `openai`, ...) with `engine_options` (what `-o
    KEY=VALUE` gives, e.g. `{"device": "cuda"}`); `judge_model` (on `judge_backend`) judges
    while `model` extracts. `scale` multiplies every score. `context_sep` splits a CSV or
    Parquet context cell at that text; `delimiter` is a CSV file's cell delimiter.

    `out` is the results file (JSON Lines, or Parquet by its extension), with its manifest
    beside it and, for the local runner, the run store `<out>.run.sqlite` (or `store`): rows are
    committed as they are scored, and the same call after an interruption scores only the rest
    (`resume=False` discards the store and scores every row again). Without `out` nothing is
    written and the records are held in memory. `cache` keeps extracted claims in the claim
    cache (`False`: none; a `ClaimCache`: that one). `runner="ray"` scores on Ray Data (`ray`:
    its `RayOptions`), its shards in `shards` (default `<out>.shards`), merged into `out` unless
    `merge=False`. `progress` shows the run as it goes (see `Progress`).

    A row that cannot be scored is recorded with status `error` and its reason, and the others
    are scored; the call raises (an `OfflineRecallError` saying what to do) only when no row
    can be scored, or before any is, for an input or an option it cannot use.
    """
    options = ScoreOptions(
        scorers=tuple(_scorer_ids(scorers)),
        model=model,
        backend=backend,
        engine_options=dict(engine_options or {}),
        scale=scale,
        judge_model=judge_model,
        judge_backend=judge_backend,
        map=dict(map or {}),
        context_sep=context_sep,
        delimiter=delimiter,
        out=None if out is None else Path(out),
        store=None if store is None else Path(store),
        resume=resume,
        cache=cache,
        runner=runner,
        ray=ray,
        shards=None if shards is None else Path(shards),
        merge=merge,
    )
    with RunPlan.open(data, options) as plan:
        return plan.score(progress)


def _scorer_ids(scorers: str | Sequence[str]) -> list[str]:
    """Scorer ids from a list, or a comma-separated string; each known, none twice."""
    from ..scorer.registry import scorer_kind

    given = scorers.split(",") if isinstance(scorers, str) else list(scorers)
    ids = list(dict.fromkeys(s.strip() for s in given if s.strip()))
    if not ids:
        raise ConfigurationError("name at least one scorer")
    for sid in ids:
        scorer_kind(sid)  # an unknown id lists the known ones
    return ids
