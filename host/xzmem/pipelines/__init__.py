"""The memory pipelines (seeds 000, 001, 002, 004): sieve, changes, reflection, working memory, profile, their prompts and log."""
