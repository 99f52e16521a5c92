# Tool refusals worded for a voice: one short sentence in the configured language (zh or en).
#
# A voice server reads a tool error to the user as it is, so the text names the field and the
# allowed values in words, without JSON or Python notation. Imported only when a refusal is worded;
# the tables are single strings (no dict on the heap). docs/mcp.md lists the English forms.

from micropython import const

_MAX_VALUE = const(20)  # characters of a refused value that are repeated back
_MAX_DETAIL = const(80)

# "|key=word|" for field names, enum values and JSON types; a key missing here is said as it is.
_ZH_WORDS = (
    "|action=操作|type=类型|content=内容|amount=金币数|datetime=时间|repeat=重复方式|priority=优先级"
    "|force=强制添加|relation=关系|name=名字|closeness=亲密度|topic=主题|emotion=情绪|intensity=强度"
    "|importance=重要程度|keyword=关键词|start_date=开始日期|end_date=结束日期|limit=条数"
    "|age=年龄|gender=性别|location=所在地|birthday=生日|like=喜欢|dislike=不喜欢|family=家人"
    "|fact=事实|trait=性格|habit=习惯|moment=特别时刻|goal=目标|schedule=日程|chat=聊天记录"
    "|coins=金币|mood=心情|event=事件|keyed=主机记忆|affection=亲密度"
    "|read=读取|write=写入|delete=删除|complete_schedule=完成日程|recall=回忆|search=搜索"
    "|none=不重复|daily=每天|weekly=每周|monthly=每月|yearly=每年|event_type=事件类型|significance=重要性"
    "|neutral=平静|happy=开心|sad=难过|excited=兴奋|worried=担心|touched=感动"
    "|male=男|female=女|other=其他"
    "|string=文字|integer=整数|number=数字|boolean=是或否|array=列表|object=对象|"
)
_EN_TYPES = "|string=text|integer=a whole number|number=a number|boolean=true or false|array=a list|object=an object|"

# Sentences by Refusal.what: "order:template", the order saying which of f(ield), v(alue) and
# a(llowed, already in words) fill the %s in turn.
_ZH = (
    "|missing=f:缺少%s。"
    "|choice=fva:没有这个%s：%s。可以用：%s。"
    "|type=fav:%s要是%s，收到的是%s。"
    "|range=fav:%s要在这个范围：%s，收到的是%s。"
    "|long=fa:%s太长了，最多 %s 个字。"
    "|bytes=fa:%s太长了，最多能存 %s。"
    "|empty=f:%s不能是空的。"
    "|format=fva:%s的格式不对：%s。要像 %s 这样。"
    "|nomatch=fv:没有找到这个%s：%s。"
    "|many=fva:有好几个%s都对得上%s：%s。是哪个时间的？"
    "|full=fa:%s已经存满了，最多 %s 条，先删掉一条吧。"
    "|unknown=va:不认识这个参数：%s。能用的参数有：%s。"
    "|too_big=va:这条消息太长了：%s 字节，最多 %s 字节。"
    "|nospace=:记忆空间已经满了，这条没有存下来。"
    "|nomem=:我现在有点忙不过来，这次没做成，请过一会儿再说一次。"
    "|nospace_dropped=v:记忆空间已经满了，删掉最早的 %s 条旧记忆也腾不出地方，这条没有存下来。"
    "|"
)
_EN = (
    "|missing=f:The %s is missing."
    "|choice=fva:There is no %s called %s. You can use: %s."
    "|type=fav:The %s should be %s, not %s."
    "|range=fav:The %s should be %s, not %s."
    "|long=fa:The %s is too long: at most %s characters."
    "|bytes=fa:The %s is too long: it holds at most %s."
    "|empty=f:The %s is empty."
    "|format=fav:The %s should look like %s, not %s."
    "|nomatch=fv:I found no %s matching %s."
    "|many=fva:Several %ss match %s: %s. Which one (say its time)?"
    "|full=fa:The %s list is full at %s. Delete one first."
    "|unknown=va:I do not know the argument %s. The arguments are: %s."
    "|too_big=va:That message is too long: %s bytes, at most %s."
    "|nospace=:The memory is full, so this was not saved."
    "|nomem=:I am short of working memory right now, so that did not get done. Please ask again in a moment."
    "|nospace_dropped=v:The memory is full: even after dropping the %s oldest archived memories there was no room, so this was not saved."
    "|"
)


def _look(table, key):
    i = table.find("|" + key + "=")
    if i < 0:
        return None
    i += len(key) + 2
    return table[i : table.find("|", i)]


def word(key, language):
    """A field name, value or type in words: 'type' -> 类型 (zh) or 'type' (en)."""
    key = str(key)
    if language == "zh":
        found = _look(_ZH_WORDS, key)
        if found is not None:
            return found
    return key.replace("_", " ")


def _value(value, language):
    zh = language == "zh"
    if isinstance(value, dict):
        return "对象" if zh else "an object"
    if isinstance(value, (list, tuple)):
        return "列表" if zh else "a list"
    if value is None:
        return "空" if zh else "nothing"
    text = str(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _allowed(r, language):
    zh = language == "zh"
    a = r.allowed
    if r.what == "choice":
        said = []
        for v in a:  # two values may share a word (schedule and event are both 日程): each word once
            w = word(v, language)
            if w not in said:
                said.append(w)
        return ("、" if zh else ", ").join(said)
    if r.what == "type":
        return (word(a, language) if zh else _look(_EN_TYPES, a)) or a
    if r.what == "range":
        lo, hi = a
        if hi is None:
            return ("至少 %s" if zh else "at least %s") % lo
        if lo is None:
            return ("最多 %s" if zh else "at most %s") % hi
        return ("%s 到 %s" if zh else "from %s to %s") % (lo, hi)
    if r.what == "unknown":  # argument names: the model must use them as they are
        return ("、" if zh else ", ").join(a)
    if r.what == "bytes":  # a UTF-8 byte limit, said as Chinese characters (3 bytes) and letters (1)
        return ("%d 个汉字或 %d 个字母" if zh else "%d Chinese characters or %d letters") % (a // 3, a)
    if r.what == "many":
        return ("、" if zh else "; ").join([_value(v, language) for v in a])
    return "" if a is None else str(a)


def say(exc, language, text=None):
    """One sentence for a refused call. A Refusal is worded from its parts; other errors keep their
    English `text` (by default str(exc)) under a short lead-in in Chinese, cut to a sentence's length."""
    zh = language == "zh"
    what = "nomem" if isinstance(exc, MemoryError) else getattr(exc, "what", None)
    if what == "nospace" and exc.value:
        what = "nospace_dropped"  # the sentence says what was given up trying
    template = _look(_ZH if zh else _EN, what) if what else None
    if template is None:
        text = text or str(exc) or type(exc).__name__
        if len(text) > _MAX_DETAIL:
            text = text[: _MAX_DETAIL - 1] + "…"
        return ("没能完成：" + text) if zh else text
    order, template = template.split(":", 1)
    parts = []
    for c in order:
        if c == "f":
            parts.append(word(exc.field, language))
        elif c == "v":
            parts.append(_value(exc.value, language))
        else:
            parts.append(_allowed(exc, language))
    return template % tuple(parts)
