"""Prompt templates shipped as `prompts/<name>.md`: a system part and a user part with `{placeholders}`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

PROMPT_DIR = Path(__file__).parent / "prompts"
_SYSTEM = "<!-- system -->"
_USER = "<!-- user -->"


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: str

    def render(self, **values: str) -> tuple[str, str]:
        """Fill `{name}` placeholders in the user part (plain replace: the JSON braces stay as they are)."""
        user = self.user
        for key, value in values.items():
            user = user.replace(f"{{{key}}}", value)
        return self.system, user


@cache
def load_prompt(name: str) -> Prompt:
    text = (PROMPT_DIR / (f"{name}.md")).read_text(encoding="utf-8")
    if _SYSTEM not in text or _USER not in text:
        raise ValueError(f"prompt {name} must have {_SYSTEM} and {_USER} parts")
    system, user = text.split(_SYSTEM, 1)[1].split(_USER, 1)
    return Prompt(name, system.strip(), user.strip())
