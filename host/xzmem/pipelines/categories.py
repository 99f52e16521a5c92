"""Keyed-memory categories: seed 004's list, and how other vocabularies map onto it.

Seed 000 was written for desktop agents (desktop_sop, ui_templates, ...); a companion files its
keyed memories under seed 004's categories instead, and names from the other vocabularies are
mapped here. Seed 001's reflection types map too: knowledge -> fact, skill -> skill,
event -> fact (tagged 事件), emotional -> insight (tagged 情绪).
"""

CATEGORIES = (
    "identity", "preference", "decision", "fact", "insight",
    "todo", "correction", "skill", "relationship", "project_state",
)
PROFILE = "profile"
# Never deleted by cleanup or by the LLM (seed 000's "core information"); they are updated in place.
CORE_CATEGORIES = frozenset({"identity", "preference", "relationship", PROFILE})
# A change in these marks the synthesized profile stale. Seed 004 §5.2.7 names identity, preference
# and skill; the synthesis also reads relationships, decisions and project states (its active
# projects), so a change in those makes it just as out of date.
PROFILE_INPUTS = frozenset({"identity", "preference", "skill", "relationship", "decision", "project_state"})

ALIASES = {
    "user_preferences": "preference", "preferences": "preference", "coding_style": "preference",
    "ui_templates": "preference", "desktop_sop": "skill", "error_patterns": "fact",
    "workflow_history": "project_state", "knowledge": "fact", "event": "fact", "emotional": "insight",
    "身份": "identity", "偏好": "preference", "决定": "decision", "事实": "fact", "看法": "insight",
    "待办": "todo", "更正": "correction", "技能": "skill", "关系": "relationship", "项目": "project_state",
}


def normalise_category(name: str) -> str | None:
    """The seed 004 category for `name`, or None when it is unknown."""
    name = name.strip().lower().replace("-", "_").replace(" ", "_")
    if name in CATEGORIES:
        return name
    return ALIASES.get(name)
