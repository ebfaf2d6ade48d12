"""The built-in scorers, one package each (their prompts, rules, result and score), made with
the scorer kit (`offline_recall.scorer`, whose families two pairs of them share: claims judged
against the context, chunks judged one by one) and registered by id in its registry: context
recall, context precision, faithfulness, context relevance."""
