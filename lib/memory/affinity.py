# Affinity: coins the user spent on the companion decide the relationship stage (seed 003 §5).

STAGES = (
    # (lowest total_coins_spent, name, label)
    (0, "stranger", "陌生期"),
    (21, "acquaintance", "熟悉期"),
    (51, "friend", "亲密期"),
    (101, "close_friend", "深厚期"),
    (201, "soulmate", "灵魂伴侣"),
)


# How to speak at each stage (seed 003 §5.2), one line per stage in each configured language.
_STYLE_ZH = (
    "陌生期：礼貌客气，称呼对方“您”，不开玩笑，不撒娇。",
    "熟悉期：自然一些，改口叫“你”，偶尔撒个娇。",
    "亲密期：放松随意，可以开开玩笑。",
    "深厚期：彼此信任，可以依赖对方，聊聊心里话。",
    "灵魂伴侣：完全放松，用你们之间的默契和小梗。",
)
_STYLE_EN = (
    "Stranger: polite and a little formal (您 in Chinese); no teasing, no sweet talk.",
    "Acquaintance: natural and relaxed (你 in Chinese), playful now and then.",
    "Friend: easy-going and casual; jokes are welcome.",
    "Close friend: trusting and warm; share what is on your mind.",
    "Soulmate: completely at ease; use your shared in-jokes.",
)


def style(total_coins_spent, language="zh"):
    """The one-line way of speaking for the stage of a coin total, in `language` (zh or en)."""
    return (_STYLE_EN if language == "en" else _STYLE_ZH)[stage(total_coins_spent)[0]]


def stage(total_coins_spent):
    """(index 0-4, name, label) of the stage for a coin total."""
    if not isinstance(total_coins_spent, int) or total_coins_spent < 0:
        raise ValueError("total_coins_spent must be an integer >= 0, got %r" % (total_coins_spent,))
    found = 0
    for i in range(len(STAGES)):
        if total_coins_spent >= STAGES[i][0]:
            found = i
    return found, STAGES[found][1], STAGES[found][2]


def describe(total_coins_spent):
    index, name, label = stage(total_coins_spent)
    nxt = STAGES[index + 1][0] if index + 1 < len(STAGES) else None
    return {
        "total_coins_spent": total_coins_spent,
        "stage": name,
        "stage_index": index,
        "stage_label": label,
        "coins_to_next_stage": None if nxt is None else nxt - total_coins_spent,
    }
