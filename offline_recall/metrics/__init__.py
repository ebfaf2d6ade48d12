"""The built-in scorers, one package each (their prompts, rules, result and score), made with
the scorer kit (`offline_recall.scorer`) and registered by id in its registry: context recall,
context precision, faithfulness, context relevance; and the families two of them share, claims
judged against the context (`claims/`) and chunks judged one by one (`chunks.py`)."""
