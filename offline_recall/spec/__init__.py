"""What a run is: its spec, how it is resolved, its manifest, and how two runs differ."""
