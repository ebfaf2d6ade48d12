"""Bulk scoring on Ray Data: shards of the input read by Ray tasks, scored in an actor pool.

Each worker (a Ray actor) builds the engine and scorers from the serialised run spec once, on
its GPUs when it has some, and scores its rows through the same batched path as the local
runner (`score_window`, a window at a time), so a row's record is the one the local runner
writes. `score_shards` is what `offline-recall score --runner ray` runs: the input file cut into
shards (`data.shards`), read by Ray tasks, each shard scored by one worker and committed as one
Parquet file (`ShardFolder`); shards committed earlier are not read again. `ray_dataset`
scores a `ray.data.Dataset` with the same workers.

The claim cache is each worker's node's own (`claims.sqlite` in the node's cache folder,
shared by that node's workers through SQLite): no network hop or central actor sits on the
scoring path, and a claim list is the same whichever node extracted it.

Ray is an optional extra, imported only when one of these runs.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import Field

from .._version import __version__
from ..data.dataset import Dataset, Row, RowError
from ..data.shards import Shard, ShardPlan, read_shards
from ..engines import engine_kind
from ..errors import ConfigurationError, MissingExtraError, OfflineRecallError
from ..frozen import Frozen
from .claim_cache import ClaimCache
from .differences import installed_versions
from .local import score_window
from .results import ItemRecord
from .session import session
from .shard_folder import ShardFolder
from .spec import RunSpec
from .summary import windows

RAY_INSTALL = "pip install 'offline-recall[ray]'"
MAX_READERS = 8
"""Read tasks at once, at most: each reads a shard far faster than a worker scores one."""


class RayOptions(Frozen):
    """Where and how wide a Ray run goes."""

    address: str | None = Field(
        default=None,
        description="A running cluster (`auto`, `ray://HOST:PORT`); None starts a local Ray "
        "unless RAY_ADDRESS names one",
    )
    workers: int = Field(default=1, ge=1, description="Scoring actors, each with its own engine")
    gpus_per_worker: float = Field(default=0, ge=0)
    cpus_per_worker: float = Field(default=1, ge=0)
    claim_cache: bool = Field(default=True, description="Workers use their node's claim cache")


def require_ray() -> Any:
    """The `ray` module, or one error naming the install command."""
    try:
        import ray
        import ray.data
    except ImportError as e:
        raise MissingExtraError("ray", RAY_INSTALL) from e
    return ray


@contextlib.contextmanager
def _stderr_hidden() -> Iterator[None]:
    """Ray's native code writes its start-up notes to file descriptor 2, past Python's logging:
    point it at /dev/null while Ray starts (a failure still raises, and is reported)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def connect(options: RayOptions, *, quiet: bool = False) -> Any:
    """Join the cluster `options` name (or start a local Ray), once per process. `quiet` keeps
    Ray's own logs and progress bars off the terminal (the command line shows its own)."""
    ray = require_ray()
    if quiet:
        # Ray's core logs errors that are advice to Ray developers (constructor arguments in
        # the object store); a failed run still raises, with its cause.
        os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
        logging.getLogger("ray.data").setLevel(logging.CRITICAL)  # a failure is raised to us
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
    if not ray.is_initialized():
        try:
            with _stderr_hidden() if quiet else contextlib.nullcontext():
                ray.init(
                    address=options.address,
                    include_dashboard=False,
                    log_to_driver=not quiet,
                    logging_level=logging.ERROR if quiet else logging.INFO,
                )
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = options.address or "a local Ray"
            raise ConfigurationError(
                f"cannot reach {where} ({str(e).splitlines()[0]}); start the cluster "
                "(`ray start --head`) or give --ray-address ray://HOST:PORT"
            ) from e
    return ray


def _check_worker(spec: RunSpec) -> None:
    """Refuse to score on a node whose software differs from the run's spec."""
    installed = installed_versions(engine_kind(spec.engine.name).distributions)
    wanted = {"offline-recall": spec.library_version, **spec.engine_versions}
    have = {"offline-recall": __version__, **installed}
    changed = [
        f"{n} {have.get(n, 'absent')} (run: {v})" for n, v in wanted.items() if have.get(n) != v
    ]
    if changed:
        raise ConfigurationError(
            f"a Ray worker has {', '.join(changed)}; install the run's versions on every node"
        )


class Worker:
    """A scoring actor: the spec resolved once on this worker, and its engine and scorers
    started from that."""

    def __init__(self, spec_json: str, claim_cache: bool) -> None:
        spec = RunSpec.model_validate_json(spec_json)
        _check_worker(spec)
        self._cache = ClaimCache() if claim_cache else None
        self._scoring = session(spec, claim_cache=self._cache)
        self._digest = spec.digest

    def score(self, rows: Sequence[Row | RowError]) -> list[ItemRecord]:
        """Each row's record, a window at a time, as the local runner scores them."""
        scoring = self._scoring
        return [
            record
            for window in windows(rows, scoring.window)
            for record in score_window(scoring, window, self._digest)
        ]


class ShardScorer(Worker):
    """Scores whole shards and commits each as one file in the run's shard folder."""

    def __init__(self, spec_json: str, claim_cache: bool, folder: str) -> None:
        super().__init__(spec_json, claim_cache)
        self._folder = ShardFolder(Path(folder))

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[int]]:
        shards, counts = [], []
        for index, rows in zip(batch["shard"], batch["rows"], strict=True):
            records = self.score(list(rows))
            self._folder.write(int(index), records)
            shards.append(int(index))
            counts.append(len(records))
        return {"shard": shards, "rows": counts}


def _read(
    batch: dict[str, Any], dataset: Dataset, header: tuple[str, ...] | None
) -> Iterator[dict[str, Any]]:
    """A Ray Data task: the shards a batch names, read from the input, one block per shard."""
    import numpy as np

    plan = ShardPlan(shards=(), header=header)
    for task in batch["task"]:
        shards = [Shard.model_validate(s) for s in json.loads(str(task))]
        for shard, rows in read_shards(dataset, plan, shards):
            held = np.empty(1, dtype=object)
            held[0] = rows
            yield {"shard": np.array([shard.index]), "rows": held}


def _tasks(pending: Sequence[Shard]) -> list[list[Shard]]:
    """Read tasks: one per text shard; one per Parquet row group (read in one pass)."""

    def key(shard: Shard) -> Any:
        return shard.index if shard.group is None else ("group", shard.group)

    return [list(group) for _, group in itertools.groupby(pending, key)]


def actor_args(options: RayOptions) -> dict[str, Any]:
    """The actor pool's size and each worker's resources. A worker that dies is restarted and
    its batch retried by Ray Data (its default), so a killed worker loses no shard."""
    ray = require_ray()
    args: dict[str, Any] = {
        "compute": ray.data.ActorPoolStrategy(size=options.workers),
        "num_cpus": options.cpus_per_worker,
    }
    if options.gpus_per_worker:
        args["num_gpus"] = options.gpus_per_worker
    return args


_RAISED = re.compile(r"offline_recall\.errors\.\w+: (.+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _failure(error: Exception) -> OfflineRecallError:
    """A Ray failure as one line. An offline-recall error raised in a worker keeps its message:
    Ray passes it on as an object, or (from an actor's start) only as the text of its trace."""
    chain: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and len(chain) < 8:
        if isinstance(seen, OfflineRecallError):
            return seen
        chain.append(seen)
        seen = getattr(seen, "cause", None) or seen.__cause__
    texts = [_ANSI.sub("", str(e)) for e in chain]
    for text in texts:
        if raised := _RAISED.findall(text):
            return OfflineRecallError(raised[-1].strip())
    first = next((t.strip() for x in texts for t in x.splitlines() if t.strip()), "")
    return OfflineRecallError(
        f"the Ray run failed ({first or type(error).__name__}); committed shards are kept: run "
        "the same command again to score the rest"
    )


def score_shards(
    spec: RunSpec,
    dataset: Dataset,
    plan: ShardPlan,
    pending: Sequence[Shard],
    folder: ShardFolder,
    options: RayOptions,
    on_shard: Callable[[int], None] | None = None,
    *,
    quiet: bool = False,
) -> None:
    """Score the `pending` shards of `dataset` on Ray, each committed to `folder` as its worker
    finishes it; `on_shard` is called with each committed shard's row count, on the driver."""
    if not pending:
        return
    ray = connect(options, quiet=quiet)
    dataset = replace(dataset, path=dataset.path.resolve())  # workers do not share our cwd
    tasks = [{"task": json.dumps([s.model_dump() for s in t])} for t in _tasks(pending)]
    shards = ray.data.from_items(tasks, override_num_blocks=len(tasks)).map_batches(
        _read,
        batch_size=1,
        # Reading a shard is light next to scoring it: a few tasks, holding no CPU the workers
        # need, keep every worker fed without starting a process per shard.
        num_cpus=0,
        compute=ray.data.TaskPoolStrategy(size=min(options.workers, MAX_READERS)),
        fn_kwargs={"dataset": dataset, "header": plan.header},
    )
    scored = shards.map_batches(
        ShardScorer,
        batch_size=1,
        fn_constructor_kwargs={
            "spec_json": spec.model_dump_json(),
            "claim_cache": options.claim_cache,
            "folder": str(folder.path.resolve()),
        },
        **actor_args(options),
    )
    try:
        for row in scored.iter_rows():
            if on_shard is not None:
                on_shard(int(row["rows"]))
    except Exception as e:  # Ray's and Ray Data's errors, however wrapped
        raise _failure(e) from e
