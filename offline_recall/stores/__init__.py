"""What keeps results: the run store, Ray's shard folders, result files, the claim cache."""
