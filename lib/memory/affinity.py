# Affinity: coins the user spent on the companion decide the relationship stage (seed 003 §5).

STAGES = (
    # (lowest total_coins_spent, name, label)
    (0, "stranger", "陌生期"),
    (21, "acquaintance", "熟悉期"),
    (51, "friend", "亲密期"),
    (101, "close_friend", "深厚期"),
    (201, "soulmate", "灵魂伴侣"),
)


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
