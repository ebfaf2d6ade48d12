"""Reading runs back: HTML reports, A/B comparisons of two runs, and their statistics."""
