"""Spoken lines as the fast channel needs them: fillers and stutters out, sentences cut into clauses,
questions, pretend play and hypotheticals recognised, all without punctuation to lean on (speech
recognition often gives none).
"""

from __future__ import annotations

import re

HAN = re.compile(r"[\u4e00-\u9fff]")

# --- normalising ------------------------------------------------------------------------------

# A word said twice or more in a row while the speaker looks for the next one (我我我, 然后然后).
# Only function words: doubled content words are names and kin terms (豆豆, 妈妈).
_STUTTER_ZH = re.compile(r"(我|你|他|她|就是|然后|那个|这个|说|叫|超级|非常|特别|不对|对|最喜欢|最|喜欢|讨厌|还有)(?:\s*\1)+|(是)(?:\s+是)+")
_FILLER_ZH = re.compile(r"[嗯呃额唔]+|^(?:然后)?(?:我)?(?:跟你说|和你说|告诉你)(?=我)|(?<=[\u4e00-\u9fff])(?:嘿嘿|哈哈|嘻嘻)+$|^(?:哎呀|哎|诶|那个|就是|小智|小志)+|(?<=\s)(?:哎呀|那个|就是)+|(?<=[喜欢爱吃是在住叫])(?:那个|就是)+"
                        r"|那个(?=[我你他她\d一二两三四五六七八九十])|小智$")
_STUTTER_PAIR_ZH = re.compile(r"([我你他她][\u4e00-\u9fff]{1,2})\1+")  # 我我, 我喜欢我喜欢
_STUTTER_KIN_ZH = re.compile(r"(爸爸|妈妈|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|姥姥|姥爷|外公|外婆)\1+")
# A name said one character at a time (王 子 涵) is one word.
_SPELLED_ZH = re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff](?: [\u4e00-\u9fff](?![\u4e00-\u9fff])){1,3}")
_WAKE_ZH = re.compile(r"^(?:小智|小志|小知)+\s*")
_STUTTER_EN = re.compile(r"\b(\w+(?: \w+)?)(?:\s+\1\b)+", re.I)  # "i i", "i got i got"
_FILLER_EN = re.compile(r"\b(?:um+|uh+|uhm+|erm?|hmm+|mm+)\b[,\s]*", re.I)
_FILLER_LIKE = re.compile(r"\b(is|to|so|of|was|i'm|im|in) like\b(?! to\b)", re.I)  # "my name is like ava", "i'm like eight"
# What asks the companion to keep a statement, said before it: the statement is the thing to keep
# (remember that i like sharks, can you remember that…, 你要记住我…)
_KEEP_THIS = re.compile(r"^(?:(?:can|could|will) you |please |and |so )?(?:remember that (?=i\b|i'm\b|my\b)"
                        r"|remember (?=i (?:like|love|hate|don't like|am)\b|i'm\b|my name\b))"
                        r"|^(?:你)?(?:要|一定要)?(?:记住|记好)(?:了)?(?=我)", re.I)
# Contractions typed or transcribed without their apostrophe.
_APOSTROPHE = [(re.compile(rf"\b{bare}\b", re.I), full) for bare, full in (
    ("im", "i'm"), ("dont", "don't"), ("doesnt", "doesn't"), ("isnt", "isn't"), ("cant", "can't"),
    ("whats", "what's"), ("shes", "she's"), ("hes", "he's"), ("youre", "you're"), ("ive", "i've"),
    ("lets", "let's"), ("ill (?=be|see|do|go|have|get|turn)", "i'll "), ("thats", "that's"), ("wont", "won't"), ("didnt", "didn't"), ("arent", "aren't"),
    ("theyre", "they're"), ("its (?=my|me|a|an|the|so|really|too|not|very|super|for|[a-z]+$)", "it's "),
    ("birthdays (?=on|is|in)", "birthday's "), ("valentines", "valentine's"), ("new years", "new year's"),
    ("my names", "my name's"), ("his names", "his name's"), ("her names", "her name's"),
)] + [(re.compile(r"\b((?:my|his|her|our) (?:\w+ )?\w+?)s name\b", re.I), r"\1's name"),
      (re.compile(r"\b((?:my|our|his|her) (?:\w+ )?\w\w+?)s (called|named)\b", re.I), r"\1's \2"),
      # my daddy name marcus: a small child's "name is"
      (re.compile(r"\b(my (?:mummy|mommy|mum|mom|daddy|dad|nana|nanny|grandma|grandpa|sister|brother|doggy|dog|cat)) name (?=[a-z]+$)", re.I),
       r"\1's name is "),
      # my dads a builder: a relative's "is" said without its apostrophe
      (re.compile(r"\b((?:my|his|her) (?:big |little )?(?:mum|mom|dad|sister|brother|nan|nana|nani|dadi|grandma|grandpa|aunt|uncle|cousin))s "
                  r"(?=a |an |the |allergic |in (?:\w+ grade|year|reception|kindergarten|preschool|nursery)\b|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
                  r"|sixteen|seventeen|eighteen|nineteen|twenty)\b)", re.I), r"\1's ")]

# British "have got": i've got a hamster, he's got a dentist appointment, we have got two cats
_HAVE_GOT = re.compile(r"\b(i|we|you|they|he|she|it|[a-z]{3,}(?='s))(?:'ve| have|'s| has) got\b", re.I)


# 不是明天是后天去动物园: the day or hour said wrong is dropped, the right one opens the plan
_DAY_CORRECTED_ZH = re.compile(r"^(?:哎呀|哦|啊)?不是(?:今天|明天|后天|大后天|[这下]?个?(?:周|星期|礼拜)[一二三四五六日天末]"
                               r"|(?:早上|上午|中午|下午|晚上)?[\d一二两三四五六七八九十]{1,3}点半?)[，,\s]*是(?=[\u4e00-\u9fff\d])")
# 复诊不是周三 是周四上午十点: the day denied, then the right one
_DAY_CORRECTED_INLINE_ZH = re.compile(r"(?<=[\u4e00-\u9fff])不是(?:[这下]?个?(?:周|星期|礼拜)[一二三四五六日天]|[今明后]天)[，,\s]*是"
                                      r"(?=[这下]?个?(?:周|星期|礼拜)[一二三四五六日天]|[今明后]天)")
# 是星期六不是星期天去爬山: the day denied right after the right one is dropped
_DAY_NOT_ZH = re.compile(r"(?:(?<=周[一二三四五六日天])|(?<=星期[一二三四五六日天])|(?<=礼拜[一二三四五六日天])|(?<=[今明后]天))"
                         r"不是(?:(?:周|星期|礼拜)[一二三四五六日天]|[今明后]天|大后天)")
# "no my name is emma", "sorry i live in boston": the leading no is the correction's, not the statement's
_NO_LEAD_EN = re.compile(r"^(?:no|nope|sorry|oops|wait)\b[,.!]?\s+(?=(?:my|i|i'm|it's|we|we're)\b)", re.I)


_HOUR_ZH = [*"一二三四五六七八九十", "十一", "十二"]  # 一点 … 十二点
_CLOCK_SAID_ZH = r"(?:早上|上午|中午|下午|晚上)?(?:[一二两三四五六七八九十\d]{1,3})点(?:半|一刻|三刻|[一二三四五六七八九十\d]{1,3}分?)?"


def _small_number(said: str) -> int | None:
    """一 to 十二 (两 too) or digits as a number; None for anything else."""
    said = said.replace("两", "二")
    return int(said) if said.isdigit() else (_HOUR_ZH.index(said) + 1 if said in _HOUR_ZH else None)


def _quarter_to(text: str) -> str:
    """差一刻五点 and 五点差一刻 are a quarter to five: 四点三刻."""
    def earlier(m: re.Match) -> str:
        hour = _small_number(m.group(2))
        return m.group(0) if not hour or hour < 2 else f"{m.group(1) or ''}{hour - 1}点三刻"
    text = re.sub(r"(早上|上午|中午|下午|晚上)?差一刻([一二两三四五六七八九十]|十[一二]|\d{1,2})点", earlier, text)
    text = re.sub(r"(早上|上午|中午|下午|晚上)?([一二两三四五六七八九十]|十[一二]|\d{1,2})点差一刻", earlier, text)

    def minutes_to(m: re.Match) -> str:  # 差五分八点: five to eight, 七点五十五分
        hour, short = _small_number(m.group(3)), _small_number(m.group(2))
        if not hour or hour < 2 or not short or short >= 30:
            return m.group(0)
        return f"{m.group(1) or ''}{hour - 1}点{60 - short}分"
    return re.sub(r"(早上|上午|中午|下午|晚上)?差([一二三四五六七八九十]|十[一二]|\d{1,2})分(?:钟)?([一二两三四五六七八九十]|十[一二]|\d{1,2})点",
                  minutes_to, text)


_DAY_SAID_ZH = r"(?:这个?|下个?)?(?:周|星期|礼拜)[一二三四五六日天]|[今明后]天|大后天"


def _clock_corrected(text: str) -> str:
    """我明天三点要去学画画哦不是三点是四点: the hour said first becomes the one said last; said before any
    hour (明天下午不是三点是四点去…) the right one stands where it is said. 提醒我周五去…哦不对是周六: the same
    for a day."""
    m = re.search(rf"[，,\s]*(?:哦|啊|呃)?[，,\s]*不是({_CLOCK_SAID_ZH})[，,\s]*是({_CLOCK_SAID_ZH})", text)
    if m and m.group(1) in text[: m.start()] and (m.end() == len(text) or text[m.end()] in "，, "):
        head = text[: m.start()]
        at = head.rfind(m.group(1))
        return head[:at] + m.group(2) + head[at + len(m.group(1)):] + text[m.end():]
    if m and m.group(1) not in text[: m.start()]:
        return text[: m.start()] + m.group(2) + text[m.end():]
    day = re.search(rf"[，,\s]*(?:哦|啊|呃)?[，,\s]*不对[，,\s]*是({_DAY_SAID_ZH})$", text)
    said = re.findall(_DAY_SAID_ZH, text[: day.start()]) if day else []
    if said:
        head = text[: day.start()]
        at = head.rfind(said[-1])
        return head[:at] + day.group(1) + head[at + len(said[-1]):]
    return text


def _times_corrected(text: str) -> str:
    """The days and hours of a line as finally meant, in one place: one said twice while the rest is
    found (五月呃五月二十号, 周四周四下午), a quarter to (差一刻五点), every way of correcting one (不是三点是四点,
    是上午九点不是十点, 不是明天是后天, 复诊不是周三 是周四, 是星期六不是星期天) and a span after 过 (过二十分钟)."""
    text = re.sub(r"((?:[一二三四五六七八九十\d]{1,3}月)|(?:周|星期|礼拜)[一二三四五六日天]"
                  r"|[一二两三四五六七八九十\d]{1,3}点(?:半|一刻|三刻)?)\s*\1", r"\1", text)
    text = _clock_corrected(_quarter_to(text))
    text = re.sub(rf"({_CLOCK_SAID_ZH})[，,\s]*不是{_CLOCK_SAID_ZH}", r"\1", text)
    text = _DAY_NOT_ZH.sub("", _DAY_CORRECTED_INLINE_ZH.sub("", _DAY_CORRECTED_ZH.sub("", text)))
    return re.sub(r"(?<![\u4e00-\u9fff])过([半一二两三四五六七八九十\d]{1,3})(分钟|个?小时|个?钟头)(?!以后|之后|后)", r"\1\2以后", text)


# A time taken back inside a plan and said again: the later one stands where the first was said
# (每天晚上八点提醒我喂乌龟 哦不 八点半, 星期三 不对 是星期四 我们去看小动物, remind me at 4 no wait 4:30 to…,
# the game is on thursday wait no it's wednesday at 5, swimming's not on monday it's on tuesday)
# (不是 right before a day or an hour denies it: 后天去动物园不是明天 keeps 后天)
_TAKE_BACK_ZH = r"[，,\s]*(?:哦|啊|呃|哎|哎呀)?[，,\s]*(?:不对|哦不(?!是)|说错了|错了|不是[，,\s]*(?=是))[，,\s]*(?:是)?[，,\s]*"
_CLOCK_WORD_EN = (r"(?:\d{1,2}(?::\d\d)?(?: ?(?:am|pm|a\.m\.|p\.m\.|o'?clock))?|half past \w+|(?:a )?quarter (?:past|to) \w+|noon"
                  r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?: thirty| fifteen| forty five| o'?clock)?)")
_DAY_WORD_EN = (r"(?:(?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|today|tonight"
                r"|the \d{1,2}(?:st|nd|rd|th)(?: of \w+)?)")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_MONTH_WORD_EN = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_TAKE_BACK_EN = r"(?:,? (?:no wait|wait no|no sorry|sorry|actually|i mean|i meant|oops|no|wait|make that|no make that))+,? (?:it's |its |it is )?"


def _taken_back_zh(text: str) -> str:
    for said in (_CLOCK_SAID_ZH, _DAY_SAID_ZH):
        m = re.search(rf"({said})(?P<between>[^，。！？,.!?]*?){_TAKE_BACK_ZH}(?P<again>{said})(?![\u4e00-\u9fff]*点)", text)
        if m and not re.search(r"[不没]", m.group("between")):
            again = m.group("again")
            if said is _CLOCK_SAID_ZH and not re.match(r"早上|上午|中午|下午|晚上", again):
                part = re.match(r"早上|上午|中午|下午|晚上", m.group(1))
                again = (part.group(0) if part else "") + again  # 晚上八点 | 哦不 | 八点半: still the evening
            text = text[: m.start()] + again + m.group("between") + text[m.end():]
    return text


def _taken_back_en(text: str) -> str:
    text = re.sub(rf"(?<!not )\b(at |by )?{_CLOCK_WORD_EN}{_TAKE_BACK_EN}(?:at )?({_CLOCK_WORD_EN})\b",
                  lambda m: (m.group(1) or "") + m.group(2), text, flags=re.I)
    # may 2nd wait no may 22nd, the tenth of may no sorry the eleventh: the month stays, the day is the later one
    text = re.sub(rf"\b(?:the )?(\w+) of ({_MONTH_WORD_EN}){_TAKE_BACK_EN}(?:the )?(\w+)\b(?! of)",
                  r"the \3 of \2", text, flags=re.I)
    text = re.sub(rf"\bthe \w+ of ({_MONTH_WORD_EN}){_TAKE_BACK_EN}(?:the )?(\w+)\b(?! of)",
                  r"the \2 of \1", text, flags=re.I)
    text = re.sub(rf"\b({_MONTH_WORD_EN}) (?:the )?(?:\d{{1,2}}|\w+(?:st|nd|rd|th)){_TAKE_BACK_EN}(?:{_MONTH_WORD_EN} )?(?:the )?"
                  r"(\d{1,2}(?:st|nd|rd|th)?|\w+(?:st|nd|rd|th))\b", r"\1 \2", text, flags=re.I)
    text = re.sub(rf"(?<!not )\b(on )?{_DAY_WORD_EN}{_TAKE_BACK_EN}(?:on )?({_DAY_WORD_EN})\b",
                  lambda m: (m.group(1) or "") + m.group(2), text, flags=re.I)
    # swimming's not on monday it's on tuesday at 4: the day denied goes, the one said after stands
    text = re.sub(rf"(?: is|'s)? not (?:on )?{_DAY_WORD_EN},? (?:it's|its|it is|but) (on )?({_DAY_WORD_EN})\b",
                  lambda m: " is " + (m.group(1) or "on ") + m.group(2), text, flags=re.I)
    return re.sub(rf"(?<=\w),\s+(?=at {_CLOCK_WORD_EN}\b)", " ", text, flags=re.I)  # the dentist is wednesday, at 10:30


def spelled_name(said: str, length: int = 0) -> str:
    """The name in a name said with one of its characters explained after it: 黄子涵黄色的黄 -> 黄子涵,
    思淇三点水的淇 -> 思淇 (with the length of the name it corrects, 2), 李思远远方的远 -> 李思远."""
    splits = [(n, said[:n], re.fullmatch(r"([\u4e00-\u9fff]{2,4})的([\u4e00-\u9fff])", said[n:])) for n in (3, 2)]
    splits = [(n, name, m) for n, name, m in splits if m and m.group(2) in name]
    starting = [name for _, name, m in splits if m.group(1).startswith(m.group(2))]  # 黄色的黄, 远方的远
    if starting:
        return starting[0]
    ranked = sorted(splits, key=lambda split: (split[0] != length, split[0] == 3))
    return ranked[0][1] if ranked else said


def normalise(text: str) -> str:
    """The line without hesitations, stutters and wake words; English contractions restored."""
    text = _KEEP_THIS.sub("", text.strip())
    if HAN.search(text):
        text = _WAKE_ZH.sub("", text)
        text = re.sub(r"(?:^|(?<=\s))人家", "我", text)  # a child's coy "I"
        # regional words for days, "I", "is", "like" and a grandchild (明儿, 听日, 阿拉, 系, 欢喜, 幺儿)
        for said, meant in (("明儿个", "明天"), ("明儿", "明天"), ("今儿个", "今天"), ("今儿", "今天"), ("听日", "明天"),
                            ("阿拉", "我"), ("侬", "你"), ("佢", "他"), ("睇", "看"), ("幺儿", "孩子")):
            text = text.replace(said, meant)
        text = re.sub(r"(?:(?<=[我你他她])|(?<=生日))系(?=[\u4e00-\u9fff\d])", "是", text)
        text = re.sub(r"(?<!喜)欢喜(?=[\u4e00-\u9fff])", "喜欢", text)
        text = text.replace("六一儿童节", "儿童节")
        text = re.sub(r"(我姓[\u4e00-\u9fff])\s+(?=叫)", r"\1", text)  # 我姓黄 叫黄一帆
        text = re.sub(r"^(?:我)?(?:刚才|之前|刚刚)?(?:我)?说错了[，,\s]+(?=不是(?:这个?|下个?)?(?:周|星期|礼拜|今天|明天|后天))", "", text)  # 刚才说错了 | 不是周三是周四…
        text = re.sub(r"(?<=我)(?:顶|老)(?=喜欢|爱|怕|讨厌)", "最", text)
        text = re.sub(r"(?<=[\u4e00-\u9fff]{2})(?<![是我你的和跟])(?:他|她)(?=奶奶|爷爷|妈妈|爸爸|外婆|外公|姥姥|姥爷)", "的", text)  # 妞妞她奶奶
        # 不是我喜欢恐龙 是我弟弟喜欢恐龙: who it is, said instead of the child
        text = re.sub(r"^不是我(\S{2,10})\s*(?:是|而是)(我?[\u4e00-\u9fff]{1,5}?)\1", r"\2\1", text)
        text = re.sub(r"(?<=叫)([\u4e00-\u9fff])\s+\1(?=[\u4e00-\u9fff]{1,2}(?:$|\s))", r"\1", text)  # 叫李 李长河: a name begun again
        if re.fullmatch(r"(?:[\u4e00-\u9fff]{1,2}\s+){3,}[\u4e00-\u9fff]{1,4}", text):
            text = re.sub(r"\s+", "", text)  # 我 喜欢 吃 那个 小馄饨: speech recognition spacing every word
        # a word of English inside Chinese (我叫 Sophie, 玩 Minecraft) is part of its phrase, not a pause between two
        text = re.sub(r"(?<=[\u4e00-\u9fff])\s+(?=[A-Za-z][A-Za-z'-]*(?:\s+\d+)?(?:\s|$|[\u4e00-\u9fff]))", "", text)
        text = text.replace("幼稚园", "幼儿园")  # the Taiwanese word for it
        text = re.sub(r"俺(?!们)", "我", text).replace("俺们", "我们").replace("咱家", "我家")  # northern 俺, 咱家
        text = re.sub(r"钟意|稀罕(?=吃|玩|看|[\u4e00-\u9fff]{2})", "喜欢", text)  # Cantonese 钟意, northeastern 稀罕
        text = re.sub(r"^我家(?:小子|臭小子)", "我儿子", text)
        text = re.sub(r"^(这丫头|这孩子|孩子|我们家孩子|我家孩子|我儿子|我女儿|他|她)(?:呀|啊|呢|吧)(?:就是)?", r"\1", text)  # 这孩子呀不爱喝牛奶
        text = re.sub(r"^这丫头", "孩子", text)
        text = re.sub(r"^这个?(?=孩子)", "", text)  # a parent's 这孩子 is the child, as 孩子 is
        text = re.sub(r"(?:^|(?<=\s))孩子(?:的)?(?=姥爷|姥姥|外公|外婆|爷爷|奶奶|舅舅|姑姑|小姨|阿姨|叔叔)", "我", text)  # 孩子姥爷: the child's
        text = re.sub(r"然后(?=还有)", "", text)  # 我喜欢紫色然后还有黄色: one list, not a new clause
        text = _STUTTER_KIN_ZH.sub(r"\1", _STUTTER_PAIR_ZH.sub(r"\1", _STUTTER_ZH.sub(r"\1", text)))
        text = re.sub(r"(([\u4e00-\u9fff])\2)\1", r"\1", text)  # 乐乐乐乐: a doubled name said twice
        text = re.sub(r"([\u4e00-\u9fff])\1{2,}", r"\1", text)  # 周周周子墨: thrice is a stutter, twice a name (豆豆)
        text = _FILLER_ZH.sub("", _FILLER_ZH.sub("", text))  # twice: 嗯那个… loses 那个 once 嗯 is gone
        text = _STUTTER_ZH.sub(r"\1", text)
        text = re.sub(r"(我(?:叫|是|喜欢|住在))\s*\1", r"\1", text)  # 我叫那个 就是 我叫王小米
        text = re.sub(r"^我的名字(?:不是|不叫)[\u4e00-\u9fff]{1,3}?[，,\s]*(?:是|叫)(?=[\u4e00-\u9fff]{2,3}$)", "我叫", text)  # 我的名字不是小明是小鸣
        text = re.sub(r"[，,\s]*(?:我)?(?:上次|刚才|之前|刚刚)(?:我)?说错了[。！!]?$", "", text)  # a note, not a retraction
        text = re.sub(r"(早上|上午|中午|下午|傍晚|晚上)\s+(?=[一二两三四五六七八九十\d]{1,3}点)", r"\1", text)  # 下午 两点半
        text = _taken_back_zh(_times_corrected(text))
        text = re.sub(r"时间(?:还|也)?是(?=(?:早上|上午|中午|下午|晚上)?[一二两三四五六七八九十\d]{1,3}点)", "", text)  # 时间还是下午四点半
        text = re.sub(r"^我叫([\u4e00-\u9fff]{3,8}的[\u4e00-\u9fff])$", lambda m: "我叫" + spelled_name(m.group(1)), text)
        text = re.sub(r"^(我叫[\u4e00-\u9fff]{2,4}?)是个(女孩子?|男孩子?|女生|男生)", r"\1，我是\2", text)  # 我叫娜娜是个女孩子
        text = re.sub(r"那个(?=(?:大|二|三|小)?(?:哥|姐|弟|妹))", "", text)  # 那个大姐叫梅梅
        text = _SPELLED_ZH.sub(lambda m: m.group(0).replace(" ", ""), text)
        return re.sub(r"\s{2,}", " ", text).strip()
    text = _FILLER_EN.sub(" ", text)
    text = re.sub(r"^(?:(?:so|and|oh|um)\s+)*like,?\s+", "", re.sub(r"\s{2,}", " ", text).strip(), flags=re.I)
    text = _FILLER_LIKE.sub(r"\1", text)
    text = re.sub(r"\bat (\d{1,2}) (\d{2})\b", r"at \1:\2", text)  # "at 6 30" as speech recognition writes it
    text = re.sub(r"\b(?:at )?(\d{1,2}) (\d{2})\b(?= for\b|$)", r"at \1:\2", text)  # "friday at 11 30 for him"
    text = re.sub(r"\b(no|wait|its|it's|is|actually|sorry|mean) (1[0-2]|[1-9]) ([0-5]\d)\b", r"\1 \2:\3", text, flags=re.I)
    text = re.sub(r"\bgrand (ma|pa|mas|pas)\b", r"grand\1", text, flags=re.I)  # "my grand mas name": heard apart
    text = re.sub(r"^were (?=going|driving|having|flying|visiting|doing|leaving|moving)", "we're ", text, flags=re.I)  # were = we're
    text = re.sub(r"^([a-z]+)s my (best friend|best mate|friend)\b", r"\1 is my \2", text, flags=re.I)  # hannahs my best friend
    text = re.sub(r"^(mommy|mummy|mommys|mummys|daddy|daddys|mama|papa)(?:'?s)? name\b", lambda m: "my " + m.group(1).rstrip("s").rstrip("'") + "'s name",
                  text, flags=re.I) if re.match(r"^(?:mommy|mummy|daddy|mama|papa)'?s? name\b", text, re.I) else text
    text = re.sub(r"\s+(?:obviously|of course|duh)$", "", text, flags=re.I)
    text = re.sub(r"\s+(\w+) \1$", "", text) if re.search(r"\b(?:choo|vroom|beep|woof|meow|roar|moo|baa|oink|quack)\b \w+$", text, re.I) else text
    # a small child's grammar, said as it is meant (me is four, i five, i a girl, i scared of the dark, my name lily)
    for said, meant in ((r"^(?:me|i) is\b", "i'm"), (r"^i (?=(?:one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})$)", "i'm "),
                        (r"^i (?=a (?:big |little )?(?:girl|boy)$)", "i'm "), (r"^i (?=(?:scared|afraid|allergic)\b)", "i'm "),
                        (r"^my name (?=[a-z]+$)", "my name is "), (r"^no like\b", "i don't like"), (r"\bi gots\b", "i have"),
                        (r"\b(her|his) name (?=[a-z]+$)", r"\1 name is "), (r"\bi go (?=preschool|school|kindergarten|daycare|nursery)", "i go to ")):
        text = re.sub(said, meant, text, flags=re.I)
    text = re.sub(r"\s+(?:and (?:that'?s it|yeah|stuff)|haha(?: get it)?|hehe|lol)$", "", text, flags=re.I)
    text = re.sub(r"\bmy (?:mom|mum|dad|nan|nana|brother|sister|grandma|grandpa) (?=my (?:mom|mum|dad|nan|nana|brother|sister|grandma|grandpa))", "",
                  text, flags=re.I)  # my nan my nans called pat: the relative said again
    text = re.sub(r"^my name is (?:um )?it'?s ", "my name is ", text, flags=re.I)
    text = re.sub(r"^(?:you know what|guess what|you know|basically|so basically),? ", "", text, flags=re.I)
    text = re.sub(r"^what'?s your favou?rite (\w+),? mine is ", r"my favorite \1 is ", text, flags=re.I)  # …mine is a sloth
    text = re.sub(r"\b(called|named) ([a-z]+) not [a-z]+$", r"\1 \2", text, flags=re.I)  # my sister is called ruby not rosie
    text = re.sub(r"^(?:sorry,? )?i meant (?=(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday) not )", "", text, flags=re.I)
    text = re.sub(r"^([a-z]{3,})s (?=allergic|vegetarian|vegan|flying|coming|visiting)", r"\1 is ", text, flags=re.I)  # ellies allergic to eggs
    # English as a second language, said as it is meant (i am having a sister, i no like, i have eight years, my mother she…)
    for said, meant in ((r"\bi am having\b", "i have"), (r"\bi am not liking\b", "i don't like"), (r"\bi am liking\b", "i like"),
                        (r"\bi no like\b", "i don't like"), (r"\bi (?:am )?living in\b", "i live in"), (r"\bi born\b", "i was born"),
                        (r"\ballergic of\b", "allergic to"), (r"^me i\b", "i"), (r"\bmañana\b", "tomorrow"),
                        (r"\b(i (?:like|love)) (?:very much|too much|so much) (?:the )?", r"\1 "),
                        (r"\bi have (\w+) years(?: old)?\b", r"i'm \1"), (r"\bi am (\w+) years$", r"i'm \1"),
                        (r"\b(he|she) have (\w+) years(?: old)?\b", r"\1's \2")):
        text = re.sub(said, meant, text, flags=re.I)
    text = re.sub(r"\b(my (?:\w+ )?\w+) (?:he|she) (?=is\b|was\b|lives\b|works?\b|has\b|likes\b)", r"\1 ", text, flags=re.I)
    text = re.sub(r"\b(my (?:\w+ )?\w+?) (?:his|her) name\b", r"\1's name", text, flags=re.I)
    # a time said roughly is that time: at like 4ish, around 3, about 5 o'clock
    text = re.sub(r"\b(?:at )?(?:like |around |about |roughly )(\d{1,2}(?::\d\d)?)(?:ish)?\b", r"at \1", text, flags=re.I)
    text = re.sub(r"\bat (\d{1,2})ish\b", r"at \1", text, flags=re.I)
    # the party is at 2 not 3: the hour denied goes
    text = re.sub(rf"\b(at {_CLOCK_WORD_EN}),? not (?:at )?{_CLOCK_WORD_EN}\b", r"\1", text, flags=re.I)
    text = re.sub(r",?\s+(?:can|could|will) you remember (?:that|it)$|,?\s+(?:ok|okay)\?*$", "", text, flags=re.I)
    text = re.sub(r"\bat for\b(?= to\b| pm\b| o'?clock\b|$)", "at four", text, flags=re.I)  # "at for to go": four, misheard
    text = re.sub(r"\b(\w+) forth\b", lambda m: m.group(1) + (" fourth" if m.group(1).lower() in _MONTH_NAMES else " forth"), text)
    text = re.sub(r"(?<=[a-z]{3}) (?:[a-z] ){2,}[a-z]$", "", text, flags=re.I)  # aubrey a u b r e y: the name spelled out
    text = re.sub(r"\b(?:i'm|im|i am) the one who (likes|loves|hates)\b", lambda m: "i " + m.group(1)[:-1], text, flags=re.I)
    text = _taken_back_en(text)
    text = re.sub(r"^(i (?:really )?(?:like|love|hate) )(?:the )?\w+ no (?:the )?(\w+)$", r"\1\2", text, flags=re.I)  # i like dogs no cats
    text = re.sub(r"\bhalf (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\b"
                  r"(?! past| to (?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d))",
                  r"half past \1", text, flags=re.I)  # British "half four" is half past four
    text = re.sub(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday) not (?:on )?"
                  r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", r"\1", text, flags=re.I)  # on wednesday not tuesday
    text = _STUTTER_EN.sub(r"\1", text)
    text = _NO_LEAD_EN.sub("", text)
    text = re.sub(r"^me (like|love|want|hate)\b", r"i \1", text, flags=re.I)  # me like paw patrol
    text = re.sub(r"\bat (\w+) no (?=\w+ to\b|\w+$)", "at ", text, flags=re.I)  # remind me at five no six to call dad
    text = re.sub(r"^i (?:reckon|think|guess) (?=\w+(?: \w+){0,2} (?:is|are) (?:the best|my favou?rite))", "", text, flags=re.I)
    text = re.sub(r"\s+(?:duh|lol|haha|hehe|mate|innit|by the way|just so you know|fyi|i keep forgetting|i always forget|please remember)$", "", text, flags=re.I)
    text = re.sub(r"\s+(?:just so you know|by the way|fyi)\s+", ", ", text, flags=re.I)  # …milos mom, just so you know, milo is…
    text = re.sub(r"^(?:scratch that|never mind that|let me start again)[,\s]+", "", text, flags=re.I)  # what follows says it again
    for pattern, full in _APOSTROPHE:
        text = pattern.sub(full, text)
    text = _HAVE_GOT.sub(lambda m: m.group(1) + (" have" if m.group(1).lower() in ("i", "we", "you", "they") else " has"), text)
    return re.sub(r"\s{2,}", " ", text).strip()


# --- sentences and clauses --------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n")
_CLAUSE_ZH = re.compile(
    r"[，,；;]|[：:](?!\d)|(?<=[\u4e00-\u9fff])(?<![叫是在住的和])\s+(?=[\u4e00-\u9fff])|(?<=的)(?<![欢爱厌怕]的)\s+(?!是|就是)(?=[\u4e00-\u9fff])|(?:(?<=[A-Za-z])|(?<=[A-Za-z]\d))\s+(?=[我你他她每今明后下周]|星期|礼拜)|但是|不过|可是|而且|并且|然后|但(?=[我不])"
    r"|(?=因为|所以)|(?<=不对)(?=[我你他她那])|^不是(?:不是)?(?=我)|(?<=不是)\s+(?=我)"
    r"|(?=(?:我)?(?!还有)(?:也|还|又|更)(?:很|非常|特别|最|比较|超|挺)?(?:喜欢|爱|讨厌|不喜欢|受不了|怕|是|住|在|叫|有))"
    r"|(?<=岁)(?![了啦半的时那生])(?=[\u4e00-\u9fff])|(?<=岁[了啦])(?=[\u4e00-\u9fff])"
    r"|(?<=[\u4e00-\u9fff])(?:[哦哎啊呃]\s*)?(?=不对|不是是)|(?<=不对)(?=是|叫)|(?<=不是)(?=是)"
    r"|(?<=过敏|哮喘|近视|湿疹|鼻炎)(?=[\u4e00-\u9fff])(?!性)|(?<=错了)(?=[\u4e00-\u9fff])|(?<=的)(?=现在住)"
    r"|(?<=[\u4e00-\u9fff])(?=已经(?:学|上|练)了)"
    r"|(?<=叫[\u4e00-\u9fff]{2})(?=它|是[\u4e00-\u9fff]{1,3}色)"  # 我家小狗叫豆包 | 是白色的
    r"|(?<=的)\s+(?=现在|然后|[我你他她])|(?<=[\u4e00-\u9fff])(?<!我)(?:[哦哎啊呃]\s*)?(?=(?:我)?说错了)"
    # 我有两个哥哥大哥叫明明二哥叫亮亮: each of them named in turn
    r"|(?:(?<=哥哥|姐姐|弟弟|妹妹)|(?<=叫[\u4e00-\u9fff]{2}))(?=(?:大哥|二哥|三哥|大姐|二姐|三姐|哥哥|姐姐|弟弟|妹妹)叫(?![我你他她]))"
    r"|(?<=的妈妈|的爸爸)(?=孩子|宝宝)"
    r"|(?<=[鼠牛虎兔龙蛇马羊猴鸡狗猪]的)(?=今年)"  # 我属小狗的 | 今年六岁  # 我是朵朵的妈妈 | 孩子五岁: the parent's introduction ends there
)
_CLAUSE_EN = re.compile(
    r"\s*(?:[,;]|:(?!\d)|\bbut\b|\bhowever\b|\bwhile\b|\band then\b|\band also\b|\bso\b(?= (?:i|we|she|he|no|please|keep|don't|make|be|tell|remind|never)\b)"
    r"|(?<=\w) (?=(?:because|cause|'cause)\b)"
    r"|(?<=\w) (?=(?:what'?s yours|what about you|how about you|and you|do you|did you|can you|are you|what'?s your)\b)"
    r"|(?<=\w) (?=(?:no wait|wait no|no no|no sorry|no actually|oops|i mean|i meant|sorry|no (?=i'm|my|it's|we|i|she|he|they)))|(?<=\bno sorry) |(?<=\bno actually) |(?<=\bno wait) |(?<=\bwait no) |(?<=\boops) |(?<=\bi mean) |(?<=\bi meant) |(?<=\bsorry) "
    r"|\band (?=(?:her|his) name\b)|(?<=\w) (?=(?:her|his) name(?: is|'s)\b)"
    r"|(?<!\bme )\band (?=(?:I|I'm|I've|I'd|I'll|my|me|she|he|she's|he's|we|we're|they)\b)"
    # "…to the zoo and on saturday i have a party": a second day opens a second plan (not "tuesday and thursday")
    r"|(?<!day)(?<!day )\band (?=(?:on |this |next )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight)\b)"
    r"|(?<=\w) (?=(?:i'll|i'm|i am|she's|he's|they're|it's|that's|my name|my \w+'s name|i (?:live|like|love|hate|have|go|don't|do|can|really|also|just))\b)"
    r"|(?<=\w) (?=(?:it|they) (?:is|are|was|were|makes?|tastes?|smells?|burns?|hurts?|looks?|feels?)\b|(?:it's|they're)\b)"
    r"|(?<=\w) (?=my \w+ (?:likes|loves|hates|lives|works|plays|goes)\b)"
    r"|(?<=\w) (?=we (?:both|all|go|are|have|live|don't|moved|just|call|sit|play|walk)\b)"
    r"|(?<=\w) (?=(?:he|she) (?:just |recently |also |really )?(?:[a-z]+s|can|doesn't|won't|turned)\b|(?:he's|she's)\b)"
    r"|(?<=\bwrong) (?=(?:my|i|i'm|it's)\b))\s*",
    re.I,
)
# Where a new clause starts inside a run of Chinese with no punctuation: before 不 that opens a
# contrast (小狗不喜欢小猫, 李想不叫李响, 南京不是北京), and before 我/你/他/她 that open a new subject.
_CONTRAST_EN = re.compile(r"(?<=\s)not\b", re.I)
_NEGATED_VERB = {"do", "does", "did", "is", "am", "are", "was", "were", "i'm", "can", "could", "would", "will", "should",
                 "have", "has", "had", "really", "just", "and", "or", "but", "i", "it's", "it", "if", "why", "not"}
_CONTRAST_ZH = re.compile(r"不(?:是|叫|喜欢|爱|住|在|怕)")
_NO_CUT_BEFORE_NEGATION = set("我你他她它也还都就并可很太最真又更却才一别")  # 别: 特别不爱
# A segment that is only a person (我爸爸, 我的好朋友): the 不 after it is that person's.
_PERSON_END = re.compile(r"^(?:我的?|我们家的?|我家的?)?[\u4e00-\u9fff]{0,3}(?:妈|爸|哥|姐|弟|妹|爷|奶|公|婆|姥|舅|姑|姨|叔|婶|伯|宝|子|儿|女|友|学|师|桌)$")
_NEW_SUBJECT = re.compile(r"[我你他她它](?!们家)")
# A pronoun after these is their object (妈妈叫我, 陪你玩, 我爱你), not a new subject.
_TAKES_OBJECT = set("叫让给陪带帮诉醒和跟教等找送接着吃喝逗抱喊问说打骂夸爱欢是像比请把被对向替听看理想见管喂碰抢动拿玩用穿弄得道识"
                    "负推踢撞吓烦抓捏亲咬挠笑催吵惹骗")


_ONLY_PARTICLES = re.compile(r"[哦啊呃诶哎呀嗯噢]+")
_PARTICLES = re.compile(r"(?<=[\u4e00-\u9fff])[哦呀啊啦哈喔耶]+$")
# A piece that cannot stand alone: a greeting, or the auxiliary that opens a question ("do" | "i have…").
_GREETING = re.compile(r"^(?:hi|hello|hey)(?: there)?$|^(?:so |and |but )?(?:(?:what|when|where|why|how|who|which) )?"
                       r"(?:do|does|did|can|could|will|would|should|shall|may|what|when|where|why|how|who)$", re.I)


# A piece ending in a word that needs its clause after it ("i don't like when" | "it's dark").
_OPEN_END = re.compile(r"\b(?:when|if|because|where|that|what|than|and|make sure)$", re.I)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _cut_zh(part: str) -> list[str]:
    cuts = []
    for m in _CONTRAST_ZH.finditer(part):
        i = m.start()
        before, after = part[i - 1:i], part[i + 1:i + 2]
        if (i > 0 and HAN.match(before) and before not in _NO_CUT_BEFORE_NEGATION and after != before
                and not _PERSON_END.search(part[:i])):
            cuts.append(i)
    for m in _NEW_SUBJECT.finditer(part):
        i = m.start()
        before = part[i - 1:i]
        if part[i - 1:i + 1] in ("吉他", "其他", "其它"):
            continue  # a word that ends in 他, not a new subject
        takes_object = before in _TAKES_OBJECT and not (before == "欢" and part[i - 2:i - 1] != "喜")  # 叫欢欢她…: a name's 欢
        if (i > 0 and (HAN.match(before) or before.isascii() and before.isalpha()) and not takes_object and before not in "我你他她它"
                and not (before in "在到住" and part[i + 1:i + 2] == "家")  # 住在我家隔壁: a place, not a new subject
                and not (part[i - 2:i] == "孩子" and part[i + 1:i + 2] in "爸妈")):  # 孩子他爸: the child's father
            cuts.append(i)
    bounds = [0] + sorted(set(cuts)) + [len(part)]
    return [part[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if part[a:b]]


def _cut_en(part: str) -> list[str]:
    """Before a "not" that contrasts (lily not lucy, denver not dallas), not one that negates a verb."""
    pieces = [part]
    for m in _CONTRAST_EN.finditer(part):
        before = part[: m.start()].split()
        if before and before[-1].lower() not in _NEGATED_VERB and not before[-1].lower().endswith("'s"):
            head = pieces.pop()
            cut = len(head) - (len(part) - m.start())
            pieces += [head[:cut], head[cut:]]
    return pieces


def clauses(sentence: str) -> list[str]:
    zh = bool(HAN.search(sentence))
    parts = [p.strip(" \t\"'“”‘’") for p in (_CLAUSE_ZH if zh else _CLAUSE_EN).split(sentence) if p]
    parts = [piece for p in parts for piece in (_cut_zh(p) if zh else _cut_en(p))]
    out = [_PARTICLES.sub("", p.rstrip("。！？!?.;；")) for p in (q.strip() for q in parts) if p and p.strip("。！？!?.;；")]
    for i in range(len(out) - 2, -1, -1):
        if _GREETING.match(out[i]) or _OPEN_END.search(out[i]):
            out[i:i + 2] = [out[i] + " " + out[i + 1]]
    return [p for p in out if p and not _ONLY_PARTICLES.fullmatch(p)]  # 明天四点 | 哦 | 不对 | 是四点半


# --- questions --------------------------------------------------------------------------------

QUESTION_END = re.compile(r"(?:[?？]|[吗么][。！!]?)\s*$")
_ASK_ZH = re.compile(
    r"什么(?![都也])|啥|咋|谁|哪(?!怕)|(?<![这那好])几(?:岁|点|个|号|月|天|次|年级|遍|时)|多少|多大|多久|怎么|为什么|干嘛|是不是|有没有|(?<!不)对不对|"
    r"好不好|能不能|会不会|可不可以|要不要|记不记得|知不知道|还是.{1,8}来着|来着|对吧|是吧|[吗么呢][呀啊哦]?$|"
    r"(?:记得|知道|喜欢|好|对|是|行|要|想|会)不$|^你.{1,12}不$|(?:记得|知道)吧$|^你.*没有?$|[了过]没有?$"
)
_ASK_EN = re.compile(
    r"^(?:(?:so|and|but|hey|hi|ok|okay|wait|well)\s+)*(?:what(?! i (?:like|love) (?:the )?(?:most|best) is\b)|who|where|when|why|how|which|whose|do|does|did|is|are|am|"
    r"can|could|will|would|should|have|has|was|were|shall|may)\b|\bdo you know\b|\bright$",
    re.I,
)
# A request put as a question still asks for the thing (能提醒我…吗, can you remind me…).
_REQUEST = re.compile(r"提醒|帮我记|叫(?:醒)?我起床|叫醒我|\b(?:remind|remember to|don'?t forget|wake me)\b", re.I)


# 我是不是跟你说过我喜欢恐龙: asking whether something was said, not saying it
_ASKS_WHAT_WAS_SAID = re.compile(r"^(?:我|我们)?(?:是不是|有没有)(?:已经)?(?:跟你|和你|对你)?(?:说过|讲过|告诉过你)"
                                 r"|^(?:(?:so|and|hey|oh) )?(?:did|have|had) i (?:ever |already )?(?:tell|told) you\b|^did you know\b", re.I)


# Particles that make the whole unpunctuated line a question (…恐龙还是鲨鱼来着, …对吧).
_ASK_END_ZH = re.compile(r"(?:吗|么|来着|对吧|是吧|(?<!不)对不对|好不好|是不是|记得不|知道不|记得吧|知道吧)[呀啊哦]?$|^你.{1,16}不$|是[\u4e00-\u9fff]{1,6}还是[\u4e00-\u9fff]{1,6}$|^你[\u4e00-\u9fff]{1,10}还是[\u4e00-\u9fff]{1,8}$")


def asks_all(sentence: str) -> bool:
    """Whether a whole sentence is one question, its clauses included (你提醒我…好不好 is a request)."""
    if _ASKS_WHAT_WAS_SAID.match(sentence):
        return True
    if _REQUEST.search(sentence) and not re.search(r"什么|几点|哪|谁", sentence):
        return False
    return bool(HAN.search(sentence)) and not re.search(r"[\s，,]", sentence) and bool(_ASK_END_ZH.search(sentence))


# Said unsure (maybe i like cats i dunno, 也许我喜欢猫): a guess is not a fact to keep.
_HEDGE = re.compile(r"也许|说不定|大概吧|可能吧|好像|(?:我)?(?:也)?不(?:知道|确定)|我忘了|\bi bet\b|\b(?:maybe|perhaps|probably|i dunno|dunno|i don't know|(?:i'm )?not sure|i guess|i (?:think|reckon)(?! [a-z]+s are (?:so |really |super |very )?(?:cool|awesome|amazing)$))\b",
                    re.I)  # "i think sharks are so cool" is an opinion held, not a guess


def sure(said: list[str]) -> list[str]:
    """The clauses said for sure: a hedged clause states nothing to store, and a bare hedge cut off on
    its own ("i think", "i don't know") hedges the clauses either side of it."""
    bare = [bool(_HEDGE.fullmatch(c.strip(" ,.!。，！吧")) or re.fullmatch(r"(?:i dunno|i don't know|i think|not sure)(?: maybe| probably)?", c.strip(" ,.!"), re.I))
            for c in said]
    return [c for i, c in enumerate(said)
            if not _HEDGE.search(c) and not (i and bare[i - 1]) and not (i + 1 < len(bare) and bare[i + 1])]


# Frames that make what follows them not the speaker's own statement: someone else's words or
# thoughts (妈妈说我…, 她说她想…, my mom says i…), a wish (我希望…, 我想当…, i wish, i want to be),
# a secret (我跟你说个秘密…, i'll tell you a secret…; a secret liking is a crush, not a preference).
# The frame's own clause and the clause it opens state nothing to keep; a health fact a parent or
# teacher passes on (妈妈说我对虾过敏) is the exception, kept by the caller.
_REPORTED_ZH = re.compile(
    r"(?:[妈爸哥姐弟妹爷奶公婆姥舅姑姨叔婶伯师学友他她们家人别]|有人|大家|别人|人家)(?:都|也|还|总|老|又|就|跟我|对我)?(?:说|讲|觉得|以为|认为)"
    r"|听(?:别人|人|妈妈|爸爸|老师)?说|告诉我")
# 我想明天去公园: wanting to go on a day is a wish, not a plan (我想告诉你…, 我想想 are not)
_WISH_ZH = re.compile(r"希望|想要|想当|要当|想做|好想|真想|梦想|愿望|[我想]成为"
                      r"|^(?:我|我们)(?:也|还|就|真的|特别|很)?想(?=今天|明天|后天|大后天|下周|下个|这周|这个周|周[一二三四五六日天末]|星期|礼拜|去)")
_SECRET_ZH = re.compile(r"秘密|偷偷|悄悄|暗恋|不许告诉|别告诉")
_REPORTED_EN = re.compile(
    r"\b(?!i\b)(?:\w+) (?:always |also |just )?(?:says|said|tells me|told me|thinks|thought|knows|knew|believes|guesses|bets)\b"
    r"|\bi heard\b",
    re.I)
_WISH_EN = re.compile(r"\bi (?:wish|want|wanna|hope|would like|'d like|really want|want to be|wanna be)\b|\bi'?d love\b"
                      r"|\bmy (?:dream|wish) is\b|\bwhen i'?m (?:big|bigger|older|a grown ?up)\b", re.I)
_SECRET_EN = re.compile(r"\bsecret\b|\bdon'?t tell\b|\bpromise not to tell\b|\bcrush\b", re.I)


def _frame(clause: str) -> tuple[str, bool]:
    """("reported" | "wish" | "secret" | "", whether the frame ends the clause and so opens the next)."""
    zh = bool(HAN.search(clause))
    for kind, pattern in (("reported", _REPORTED_ZH if zh else _REPORTED_EN), ("wish", _WISH_ZH if zh else _WISH_EN),
                          ("secret", _SECRET_ZH if zh else _SECRET_EN)):
        m = pattern.search(clause)
        if m:
            rest = clause[m.end():].strip()
            return kind, len(rest) <= 3 if zh else len(rest.split()) <= 1
    return "", False


def frames(said: list[str]) -> list[str]:
    """For each clause, the frame it is said under: its own, or that of the clause right before it when
    that clause ends in one (我跟你说个秘密 | 我喜欢…, 我希望 | 我有一只小狗); "" for a plain statement."""
    out, opened = [], ""
    for i, clause in enumerate(said):
        own, opens = _frame(clause)
        out.append(own or opened)
        after = said[i + 1] if i + 1 < len(said) else ""
        # 我爸爸说他小时候 | 也怕打雷: someone's words run on into a clause with no subject of its own
        # (in English the reported words are the next clause whatever it starts with: she knows | i'm seven)
        runs_on = own == "reported" and (not HAN.search(clause) or not re.match(r"我|I\b|I'm\b", after, re.I))
        opened = own if opens or runs_on else ""
    return out


def asks(clause: str) -> bool:
    """Whether a clause is a question (punctuation or not), which states nothing to store."""
    if _REQUEST.search(clause) and not re.search(r"什么|几点|哪|\bwhat\b|\bwhen\b", clause, re.I):
        return False
    if HAN.search(clause):
        return bool(_ASK_ZH.search(clause.rstrip("。！!，,")))
    return bool(_ASK_EN.search(clause.strip()))


# --- make-believe -----------------------------------------------------------------------------

# Characters and creatures a child becomes in play (我是恐龙 嗷呜, i'm spiderman and i can climb walls):
# what follows is the role's, not the child's.
_ROLES_ZH = ("白雪公主|灰姑娘|小红帽|恐龙|霸王龙|老虎|狮子|大灰狼|怪兽|怪物|公主|王子|超人|奥特曼|蜘蛛侠|钢铁侠|海盗|巫婆|女巫|魔法师|仙女|美人鱼|机器人|"
             "孙悟空|猪八戒|哪吒|艾莎|喜羊羊|灰太狼|光头强|熊大|熊二|葫芦娃|皮卡丘|佩奇|铠甲勇士|变形金刚|"
             # a grown-up's job with 小 before it is a part taken in play (a parent says 我是医生)
             "小厨师|小医生|小护士|小老师|小警察|小司机|小消防员|小厨娘")
_ROLES_EN = ("pirate|dragon|dinosaur|t ?rex|princess|prince|superhero|monster|robot|mermaid|unicorn|king|queen|knight|witch|"
             "wizard|ninja|fairy|ghost|zombie|vampire|spider-?man|batman|superman|iron ?man|hulk|elsa|shark|lion|tiger|"
             "wolf|bear|kitty|puppy|doggy|cowboy|astronaut|alien")
# Pretend play, role assignments and hypotheticals: nothing said from here on is about the child.
_JOKE_END = re.compile(r"(?:才怪|骗你的|开玩笑的|逗你的|逗你玩的)[呢啦呀哈嘻]*$|\b(?:not|just kidding|jk|kidding)[.!]*$|\bno it'?s not\b", re.I)
_PRETEND = re.compile(
    r"如果|要是|假如|假设|假装|万一|玩游戏|来玩|玩过家家|过家家|演戏|扮演|变成|变身|就好了|长大(?:了|以后|后)?(?:要|想|会)"
    r"|来当|来扮|我(?:是|当)[^，。\s]{1,8}\s*你(?:是|当)|我当[^，。\s]{1,6}\s*你(?:当|来)|^(?:从)?现在(?:开始)?我是|你(?:当|演|扮)[^，。\s]{1,8}\s*我(?:当|演|扮|是)"
    r"|^(?:我们|咱们)?玩[\u4e00-\u9fff]{1,8}的?游戏|(?:我们|咱们|一起)玩[\u4e00-\u9fff]{1,6}吧|(?:我们|咱们)玩(?=[\u4e00-\u9fff]{1,8}(?:我|你)(?:当|演|扮))|\blet'?s say\b|\bpretend\b|\blet'?s play\b|\bplaying (?:house|pretend|a game)\b|\bmake[- ]believe\b|\bwhat if\b|\bif (?:i|we|you)\b"
    r"|梦见|梦到|做梦|梦里|(?:故事|动画片|动画|电视|书|游戏|电影)里"
    rf"|我是(?:一只|一个|一头|一条|只|个)?(?:小|大)?(?:{_ROLES_ZH})|\bi'?m (?:a |an |the )?(?:little |big )?(?:{_ROLES_EN})\b"
    r"|我(?:现在)?是(?:一只|一头|一条|只)?(?:小|大)?(?!属)[\u4e00-\u9fff]{0,2}(?:猫|狗|虎|兔|熊|龙|猪|鸟|鱼|马|羊|牛|猴|鸡|鸭)(?:咪|子)?(?![\u4e00-\u9fff]{0,3}[班人的])"
    r"|\b(?:let'?s |we can |you can )pretend\b|\bif (?:she|he|they)\b|我演|你演|(?:我们|咱们)演[\u4e00-\u9fff]{1,6}吧|^现在你是|\bplaying (?:school|house|shop|shops|doctors?|hospital|restaurant|teachers?|families|mummies and daddies|mommies and daddies)\b|\bin (?:the|my|this|that|a) (?:game|story|show|movie|cartoon|book|dream)\b|\bi (?:dreamed|dreamt|had a dream)\b|\bimagine\b|\bi wish\b|\bwhen i grow up\b|\bi'?d (?:be|name|fly|live|have)\b",
    re.I,
)


def before_make_believe(text: str) -> str:
    """The part of a line said before any pretend play or hypothetical begins; nothing of a line
    taken back as a joke at its end (我最喜欢写作业了 才怪, i just love broccoli not)."""
    if _JOKE_END.search(text):
        return ""
    m = _PRETEND.search(text)
    return text if m is None else text[: m.start()]
