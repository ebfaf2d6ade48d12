"""A run of a dataset, in one package, behind one front door: `score` (a path, rows or a
DataFrame scored, what `offline-recall score` does; in steps in `plan`, its input checked by
`input`), which gives back `dataset_scores`. What a run is (`spec`, resolved once by `resolve`
into the manifests, engine options and servers' answers it needs, headed by its `manifest`),
the scoring `session` that starts its engines and builds its scorers, where it executes
(`execute`: here by `local`, or on Ray by `ray_shards` and `ray_workers`; a Ray Dataset by
`ray_dataset`), what keeps its results (the run `store` with its `lock`, Ray's `shard_folder`,
result files in `results`, their `summary`, the `claim_cache`), and what reads a run again
(`verify`, `differences`). `evals` is Mastra's `runEvals` over items in memory; `calibration`
fits a judge profile for a run's model."""
