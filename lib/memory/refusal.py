# Refusal: a ValueError that keeps its parts (what went wrong, the field, the value, what is allowed),
# so that a tool error can be worded for a voice in the configured language (see memory.spoken).

# What went wrong, as Refusal.what:
#   missing  the field is required          choice   not one of `allowed` (a tuple of values)
#   type     not of type `allowed`          range    outside `allowed` = (lo, hi)
#   long     over `allowed` characters      empty    a blank text
#   bytes    over `allowed` bytes of UTF-8
#   format   not like the example `allowed` nomatch  nothing stored matches `value`
#   many     several match; `allowed` names them     full  no room (`allowed` = the capacity)
#   unknown  an argument the tool does not have
#   nospace  the memory partition is full (memory.space.MemoryFull; `value` = archived records dropped)


class Refusal(ValueError):
    """str() is the English sentence (logs, the host, docs/mcp.md); the parts let spoken.say() reword it."""

    def __init__(self, text, what, field, value=None, allowed=None):
        super().__init__(text)
        self.what = what
        self.field = field
        self.value = value
        self.allowed = allowed
