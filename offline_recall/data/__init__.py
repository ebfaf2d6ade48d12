"""Data in and out: reading datasets in their formats and field names, writing results."""
