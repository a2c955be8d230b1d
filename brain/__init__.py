"""Monte's engine: rules, board, patterns, search, the time and memory budget, and baselines."""
