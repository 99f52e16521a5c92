"""xzmem host companion: LLM pipelines, device client, outbox, CLI, simulator."""

__version__ = "0.1.0"
