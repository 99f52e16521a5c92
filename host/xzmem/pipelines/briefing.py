"""The memory a prompt gets, as compact Chinese text: the device's overview, what the host recalls for
the user's words and the working-memory summary, cut to a token budget.

Sections go in order of how much a companion needs them (who the user is and how close you are,
then due reminders, likes and family, then what the query recalls, then the background); a line
that does not fit the budget is left out and the next, shorter one may still fit.
"""

from __future__ import annotations

import re

from xzmem.pipelines.runner import PromptContext
from xzmem.pipelines.tokens import estimate_tokens
from xzmem.pipelines.working import relevance

DEFAULT_BUDGET_TOKENS = 600
UNREACHABLE_NOTE = "（记忆设备暂时连不上，以下是 {} 缓存的记忆，可能不是最新的）"
STAGE_LABELS = {
    "stranger": "陌生期", "acquaintance": "熟悉期", "friend": "亲密期", "close_friend": "深厚期",
    "soulmate": "灵魂伴侣",
}
_PROFILE_LABELS = (("age", "{}岁"), ("gender", "{}"), ("location", "住在{}"), ("birthday", "生日{}"))
_MAX_SCHEDULES = 5
_SOUL_CODE = re.compile(r"[01]{4}")


def _join(items, sep="、") -> str:
    return sep.join(str(i) for i in items if str(i).strip())


def _profile_line(profile: dict) -> str | None:
    parts = [profile["name"]] if profile.get("name") else []
    parts += [fmt.format(profile[key]) for key, fmt in _PROFILE_LABELS if profile.get(key) not in (None, "")]
    return "【用户】" + "，".join(parts) if parts else None


def _relationship_line(overview: dict) -> str | None:
    stage = overview.get("relationship")
    if not stage:
        return None
    label = STAGE_LABELS.get(stage, stage)
    style = overview.get("style") or ""
    # The device's style line names its stage itself ("陌生期：礼貌客气…"); then it is the whole line.
    line = "【关系】" + (style if style.startswith(label) else label + ("。" + style if style else ""))
    mood = overview.get("mood")
    if mood and not _SOUL_CODE.fullmatch(mood):  # older versions stored reflection's 4-bit code here
        line = line.rstrip("。") + "；心情：" + mood
    return line


def _reminder_lines(overview: dict) -> list[str]:
    lines = []
    for item in overview.get("reminders") or []:
        text = item.get("text") or "{} {}".format(item.get("datetime", ""), item.get("content", ""))
        lines.append(("【错过的提醒】" if item.get("missed") else "【到点的提醒】") + text + "（请先告诉用户）")
    told = {(r.get("datetime"), r.get("content")) for r in overview.get("reminders") or []}
    upcoming = [s for s in overview.get("schedules") or []
                if not s.get("completed") and (s.get("datetime"), s.get("content")) not in told]
    if upcoming:
        lines.append("【日程】" + _join((f"{s.get('datetime', '')} {s.get('content', '')}".strip()
                                        for s in upcoming[:_MAX_SCHEDULES]), "；"))
    return lines


def overview_lines(overview: dict) -> list[str]:
    """The device overview (`memory read`) as short lines, most needed first."""
    lines = [_profile_line(overview.get("profile") or {}), _relationship_line(overview)]
    lines += _reminder_lines(overview)
    prefs = overview.get("preferences") or {}
    if prefs.get("likes"):
        lines.append("【喜欢】" + _join(prefs["likes"]))
    if prefs.get("dislikes"):
        lines.append("【不喜欢】" + _join(prefs["dislikes"]))
    family = overview.get("family") or []
    if family:
        lines.append("【家人】" + _join(f"{m.get('relation', '')} {m.get('name', '')}".strip() for m in family))
    for key, label in (("traits", "性格"), ("habits", "习惯"), ("goals", "目标")):
        if overview.get(key):
            lines.append(f"【{label}】" + _join(overview[key]))
    return [line for line in lines if line]


def recalled_lines(context: PromptContext, overview: dict | None = None, query: str = "") -> list[str]:
    """What the host recalls for the query: keyed memories, working memories, then the device's recent
    facts and moments that share words with it."""
    lines = [f"【相关记忆】{m.payload}" for m in context.keyed]
    lines += [f"【刚聊到】{item.content}" for item in context.working]
    if overview and query:
        recent = list(overview.get("facts") or []) + [
            f"{m.get('topic', '')}：{m.get('content', '')}" for m in overview.get("moments") or []]
        if recent:
            scores = relevance(query, recent)
            ranked = sorted(range(len(recent)), key=lambda i: -scores[i])
            lines += [f"【往事】{recent[i]}" for i in ranked if scores[i] > 0][:5]
            lines += [f"【近况】{recent[i]}" for i in ranked if scores[i] <= 0][-3:]
    return lines


def summary_lines(context: PromptContext) -> list[str]:
    if not context.summary:
        return []
    return ["【对话背景】"] + [line for line in context.summary.splitlines() if line.strip()]


def fit(lines: list[str], budget_tokens: int) -> str:
    """The lines, in order, that fit `budget_tokens` together (estimate_tokens of the joined text)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = estimate_tokens(line + "\n")  # per-line estimates add up to at least the whole's
        if used + cost <= budget_tokens:
            kept.append(line)
            used += cost
    return "\n".join(kept)


def briefing(
    overview: dict | None,
    context: PromptContext,
    query: str,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    cached_at: str | None = None,
) -> str:
    """The memory text for a system prompt; `cached_at` (a time) says the overview is a cached one."""
    lines = [UNREACHABLE_NOTE.format(cached_at)] if cached_at else []
    if overview is not None:
        lines += overview_lines(overview)
    lines += recalled_lines(context, overview, query)
    lines += summary_lines(context)
    return fit(lines, budget_tokens)


def context_text(context: PromptContext) -> str:
    """The host's recall for one chat turn ('' when there is none): a system note before the user's words."""
    lines = recalled_lines(context) + summary_lines(context)
    if not lines:
        return ""
    return "主人相关的记忆（宿主机回忆，供参考）：\n" + "\n".join(lines)
