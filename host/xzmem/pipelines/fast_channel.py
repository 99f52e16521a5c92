"""The sieve's fast channel (seed 004 §5.2.3): rules over the user's words, no LLM, device writes at once.

A line is first tidied (fillers, stutters, wake words; `utterance.normalise`); anything from the
start of pretend play or a hypothetical on is dropped. High-signal patterns (seed 004's correction,
preference, identity, decision, todo, important, plus relationship, health and third-party) name the
sentence's signals. Each sentence is cut into clauses by its structure, not only its punctuation (at
commas, conjunctions, a contrasting 不/不是/不叫 and a new subject 我/你/他/她; at but, not, "and I…");
a clause that asks writes nothing, and every other clause gives its own writes with the `memory`
tool's types: name / age / gender / location / birthday, like / dislike (one per list item), family,
schedule (a time and something to do, a remind-me or a plan), fact (about the user in the third
person, or about the family member or person it names). A wrong write costs more than a miss, so
each rule asks for the structure it knows and leaves the rest to the deep channel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from xzmem.device import ops as opslib
from xzmem.pipelines.spoken_time import (
    CLOCK_EN,
    CLOCK_ZH,
    DAY_EN,
    DAY_ZH,
    MONTHS_EN,
    WEEKDAYS_EN,
    ZH_NUM,
    ImpossibleDate,
    en_number,
    parse_when,
    repeat_of,
    time_words,
    zh_number,
)
from xzmem.pipelines.utterance import (
    HAN,
    QUESTION_END,
    asks,
    asks_all,
    before_make_believe,
    clauses,
    frames,
    normalise,
    sentences,
    spelled_name,
    sure,
)

__all__ = ["PATTERNS", "ImpossibleDate", "Signal", "detect_high_signals", "fast_channel", "parse_when",
           "sentence_writes", "third_person"]

_KIN_ZH = ("小表妹|小表弟|小表姐|小表哥|小堂妹|小堂弟|大女儿|小女儿|大儿子|小儿子|大哥|二哥|三哥|大姐|二姐|三姐|小弟|小妹|爸爸妈妈|爸妈|妈妈|妈咪|爸爸|爸比|母亲|父亲|老婆|妻子|老公|丈夫|儿子|女儿|闺女|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|"
           "外公|外婆|姥姥|姥爷|舅舅|舅妈|姑姑|姑父|阿姨|叔叔|婶婶|伯伯|大伯|小姨|大姨|姨妈|表哥|表姐|表弟|表妹|堂哥|堂姐|"
           "堂弟|堂妹|孙子|孙女|大孙子|孙仔|外孙女|外孙|干妈|干爹|小姑|姑妈|小叔|小舅|姨父|姨夫|阿嬷|嫲嫲|阿公|马麻|把拔|姆妈|阿爸|阿妈|娘|爹|爷(?!们)|妈|爸|哥(?!们|儿)|姐(?!们|妹)|弟|妹")
_OTHERS_ZH = "最好的朋友|好朋友|朋友|同桌|同学|班主任|老师"
_KIN_EN = ("mommy|mom|mum|mummy|mother|daddy|dad|father|papa|mama|(?:big |little |baby |older |younger |twin )?(?:brother|sister)|boy|"
           "grandma|granny|nana|nan|nanna|gran|grandmother|grandpa|grandad|granddad|grandfather|aunt|auntie|uncle|cousin|son|daughter|"
           "wife|husband|step ?mom|step ?mum|step ?dad|nani|dadi|nanu|dadu|pop|poppy|poppa|grandpop|baba|yeye|nainai|laolao|laoye|waipo|waigong|"
           "abuela|abuelo|abuelita|abuelito|teta|jiddo|bhai|didi|ammi|abbu")
_OTHERS_EN = "best friend|best mate|friend|mate|teacher|neighbou?r|nanny|babysitter|childminder"

PATTERNS = {
    "correction": re.compile(
        r"不是[^，。,.！？!?]+[，,\s]*(?:而)?是|其实(?:是|叫|我)|搞错了|说错了|记错了|不对|更正|纠正一下"
        r"|\bI meant\b|\bactually,? (?:it'?s|I'?m|my|I)\b|\bcorrection\b|\bthat'?s wrong\b|\bwait,? no\b",
        re.I,
    ),
    "preference": re.compile(
        r"我(?:也|还|又|更|就)?(?:很|非常|特别|最|比较|超级?|真的|挺|一点都|一点也)?(?:喜欢|爱吃|爱喝|爱看|爱玩|爱听|爱|热爱|偏好|"
        r"讨厌|不喜欢|不爱|受不了|怕|不要|不想)"
        r"|\bI (?:really |also |do |totally )?(?:like|love|prefer|hate|dislike|enjoy|adore|can'?t stand|don'?t like)\b"
        r"|\bmy favou?rite\b|\bare (?:so |really |super |very )?(?:cool|awesome|amazing|gross|yucky|icky|disgusting|scary|creepy)$|\b(?:scares?|frightens?|terrif(?:y|ies)) me$",
        re.I,
    ),
    "identity": re.compile(
        r"我叫|我的(?:小|大|英文)?名字|叫我|我是|我(?:今年)?(?:已经|才|刚|马上就要|马上要|快要|就要|快)?[\d一二两三四五六七八九十]+岁|今年[\d一二两三四五六七八九十]+岁"
        r"|我(?:现在|目前|一直|去年|今年|前年|最近)?(?:住在|来自|家在|家住|生活在|搬到)|我在\S{1,8}住|我(?:的)?生日|出生"
        r"|我在[^，。]{1,12}(?:工作|上班|上学|读书)|我退休了|我(?:在)?(?:上|读)"
        r"|\bmy name(?:'s| is)\b|\bcall me\b|\bI'?m called\b|\bI(?:'m| am) \w+\b|\bI just turned\b"
        r"|\bI(?: live in| am from|'m from| grew up in| moved to)\b|\bI work (?:as|at|for)\b|\bmy birthday\b|\bI go to\b",
        re.I,
    ),
    "relationship": re.compile(rf"(?:{_KIN_ZH}|{_OTHERS_ZH})|\b(?:{_KIN_EN}|{_OTHERS_EN})\b", re.I),
    "health": re.compile(
        r"过敏|我(?:有|患有|得了)(?:糖尿病|高血压|哮喘|气喘|心脏病|胃病|贫血|失眠)"
        r"|\ballergic\b|\ballergy\b|\bI have (?:diabetes|asthma|high blood pressure|a heart condition|insomnia)\b",
        re.I,
    ),
    "decision": re.compile(r"决定|选择了|最终用|确定用|就这样吧|\bI(?:'ve| have)? decided\b|\bI(?:'ll| will) go with\b|\bI chose\b", re.I),
    "todo": re.compile(r"记得|需要|别忘了|提醒|待办|帮我记|叫我起床|\btodo\b|\bto-do\b|\bremind\b|\bdon'?t forget\b|\bremember to\b"
                       r"|\bwake me\b", re.I),
    "important": re.compile(r"重要[：:]|很重要的是|关键是|核心是|本质上|记住[：:]|\bimportant:|\bthe key is\b", re.I),
}
IMPORTANCE = {"relationship": 0.8, "correction": 0.9, "identity": 0.9, "preference": 0.8, "health": 0.9,
              "decision": 0.8, "todo": 0.7, "important": 0.7, "plan": 0.7}


@dataclass
class Signal:
    category: str
    sentence: str
    importance: float
    problem: str = ""  # set when the sentence cannot be stored as said (an impossible date)


# --- values ------------------------------------------------------------------------------------

_LIST_ZH = re.compile(r"和|跟|与|以及|还有|、|(?<=[\u4e00-\u9fff])[呀啊](?=[\u4e00-\u9fff])")
_LIST_EN = re.compile(r"\s+(?:and|or|&)\s+|\s*/\s*", re.I)
_TAIL_ZH = re.compile(r"(?:[了啦呀哦啊呢吧嘛哈耶咯嘞噻伐]|的(?<![辣甜酸咸苦凉冷热软硬脆]的))+$")
_TAIL_EN = re.compile(r"\s+(?:my (?:mother|mom|mum|dad|father|grandma|nani|nana|dadi) \w+.*|which .+|because .+|cause .+|ever since .+|when (?:they|it|he|she) .+|"
                      r"like (?!a )(?:the )?\w+(?: \w+)?|go the \w+|(?<!when )(?<!if )its .+|(?<!when )(?<!if )it's .+|look|and|oh|um|a lot|heaps|the \w+ ones|lots|loads|very much|so much|so so much|like a \w+|too|as well|a little|a bit|at all|anymore|now|ok|okay|the most|the best|most|best"
                      r"|more than anything(?: else)?(?: in the world)?|especially .+|(?:really |super |very )?(?:fast|high|loud)"
                      r"|on \w+ (?:mornings|afternoons|evenings|nights)|on (?:the )?weekends?|on \w+days|every \w+|at night"
                      r"|in the (?:morning|afternoon|evening)s?)$", re.I)
# Where a reason or a circumstance starts after the thing (苦瓜 | 太苦了, 黑 | 晚上不敢一个人睡, 下雨天 | 不能出去玩)
_REASON_ZH = re.compile(r"(?<=[\u4e00-\u9fff]{2})(?:不能|不可以|可以|没法|就是|有一股|有点|有一点|味道|闻起来|吃起来|看起来)|(?<=[\u4e00-\u9fff])的(?=夏天|冬天|时候|周末)|(?<=[\u4e00-\u9fff])好(?=苦|无聊|难吃|难喝|可怕|吓人|烦|累|辣|酸|臭|疼|痛|恶心|冷|热)|(?<=[\u4e00-\u9fff])(?:因为|所以|太(?=[\u4e00-\u9fff]{1,2}[了啦]$|[苦辣酸咸难臭吵凶冷热烫硬贵远累]$)"
                        r"|(?:晚上|早上|白天|中午|每次|平时)(?=不|都|就|会|总|老|我|也))")
_NOT_A_LIKING = {"now", "then", "too", "你", "您", "你们", "他", "她", "它", "他们", "you", "your", "it", "this", "that", "them", "him", "her", "that one",
                 "here", "me", "us", "everything", "anything", "nothing", "something", "stuff", "things", "all of it",
                 "什么都", "所有", "一切", "今天", "明天", "昨天", "现在", "这里", "这儿", "today", "tonight"}


_ONE_THING_EN = re.compile(r"^(?:mac and cheese|macaroni and cheese|fish and chips|peanut butter and jelly|bread and butter"
                           r"|salt and vinegar|rock and roll|cookies and cream|strawberries and cream|sweet and sour"
                           r"|hide and seek|hide-and-seek|cops and robbers|snakes and ladders|ham and cheese|rock paper scissors)\b", re.I)


def _items(value: str, zh: bool) -> list[str]:
    """One liking per list member ("猫和狗", "cats and dogs"); a list that opens with its separator
    ("和朋友聊天") is one thing."""
    value = value.strip()
    if (_LIST_ZH if zh else _LIST_EN).match(value) or not zh and _ONE_THING_EN.match(value):
        return [_clean(value, zh)]
    parts = (_LIST_ZH if zh else _LIST_EN).split(value)
    return [p for p in (_clean(part, zh) for part in parts) if p]


def _clean(value: str, zh: bool) -> str:
    value = value.strip(" ，,。.!！?？")
    if zh and "的是" in value:
        return ""  # 怕狗的是姐姐: who it is, not a thing
    if zh:  # 打针了好疼: what follows 了 is a new remark, not the thing
        value = _REASON_ZH.split(value.split()[0] if value.split() else value)[0] or value
        value = re.sub(r"^那个|(?<=[\u4e00-\u9fff])那个(?=[\u4e00-\u9fff])", "", value)  # 上那个英语课: a filler inside
        value = re.sub(r"^[\u4e00-\u9fff]{1,6}?里(?:面|头)?的(?=[\u4e00-\u9fff]{2})", "", value)  # 恐龙里面的三角龙: the one named
        said_twice = re.match(r"^(.*?([\u4e00-\u9fff]{2,4}))\2", value)  # 吃香菜香菜臭臭的, 上英语课英语课好无聊
        if said_twice:
            value = said_twice.group(1)
        value = re.split(r"[啦呀嘛](?=[\u4e00-\u9fff]{2})", value)[0]
        return _TAIL_ZH.sub("", re.split(r"了(?=[\u4e00-\u9fff])", value)[0])
    value = _TAIL_EN.sub("", _TAIL_EN.sub("", value))  # slime so much especially the glittery kind: both go
    value = re.sub(r"^(?:the |a )?\w+ no (?:actually |wait |sorry )?(?:it'?s )?(?:the |a )?(?=\w+(?: \w+)?$)", "", value, flags=re.I)  # the purple no the green
    return value[3:] if value.lower().startswith("to ") else value


def _said_once(place: str) -> str:
    """海淀区北京海淀区: a place said again with its city is the place."""
    again = re.match(r"^([\u4e00-\u9fff]{2,4}?)[\u4e00-\u9fff]{0,4}?\1$", place)
    return again.group(1) if again else place


def _family(relation: str, name: str, closeness: int = 3) -> dict:
    """The `write` op of a family member said with their name."""
    return opslib.write("family", f"{relation} {name}", relation=relation, name=name, closeness=closeness)


def _title(name: str) -> str:
    """A name heard in lower case (speech recognition) written as a name."""
    return " ".join(w[:1].upper() + w[1:] for w in name.split()) if name.islower() else name


# --- third person ------------------------------------------------------------------------------

_EN_SUBJECT = [
    (re.compile(r"^I(?:'m| am)\b", re.I), "The user is"),
    (re.compile(r"^I(?:'ve| have)\b", re.I), "The user has"),
    (re.compile(r"^I(?:'ll| will)\b", re.I), "The user will"),
    (re.compile(r"^I(?:'d| would)\b", re.I), "The user would"),
    (re.compile(r"^I (?:always |still |usually |often )?(?:go|work|live|wear|sleep|speak|take|use|need|play|do)\b", re.I), None),
    (re.compile(r"^I can\b", re.I), "The user can"),
    (re.compile(r"^we(?:'ve| have)(?: got)?\b", re.I), "The user's family has"),
    (re.compile(r"^we\b", re.I), "The user's family"),
    (re.compile(r"^I\b", re.I), "The user"),
    (re.compile(r"^my\b", re.I), "The user's"),
    (re.compile(r"^our\b", re.I), "The user's family's"),
]
_EN_OBJECT = [(re.compile(r"\bmy\b", re.I), "their"), (re.compile(r"\bme\b", re.I), "them"),
              (re.compile(r"\bmyself\b", re.I), "themselves"), (re.compile(r"\bI(?:'m| am)\b", re.I), "they are"),
              (re.compile(r"\bI\b"), "they")]


def third_person(text: str, subject: bool = True) -> str:
    """The user's own words about themselves as a sentence about the user: 我决定… → 主人决定…,
    I'm a… → The user is a…; with `subject`, a clause without one gets 主人 / The user."""
    text = text.strip()
    if HAN.search(text):
        if text.startswith("我们家") or text.startswith("我家"):
            head, rest = "主人家", text[3 if text.startswith("我们家") else 2:]
        elif text.startswith("我们"):
            head, rest = "主人他们", text[2:]
        elif text.startswith("我"):
            head, rest = "主人", text[1:]
        else:
            head, rest = ("主人" if subject else ""), text
        return head + rest.replace("我们", "主人他们").replace("我的", "自己的").replace("我", "自己")
    for pattern, replacement in _EN_SUBJECT:
        m = pattern.match(text)
        if m:
            if replacement is None:  # I go / I work / I wear → The user goes / works / wears
                verb = text[2:m.end()]  # with its adverb, if one was said (I always sleep → always sleeps)
                ending = "es" if verb.endswith("o") else "s"
                head, rest = "The user " + verb + ending, text[m.end():]
            else:
                head, rest = replacement, text[m.end():]
            break
    else:
        head, rest = ("The user" if subject else ""), (" " + text if subject else text)
    for pattern, replacement in _EN_OBJECT:
        rest = pattern.sub(replacement, rest)
    return (head + rest).strip()


# --- the user: profile fields, likes, facts ------------------------------------------------------

_NAME_STOP = re.compile(r"今年|大家|别人|人家|同学|他们|都叫|我|你|住|来自|是|在|的|和|就|呀|啊|哦|呢|啦|吧|哈|不|也|还|今|几|岁|大名|小名|英文名")
# What may come before the subject of a statement at the start of its clause (其实我叫…, 对了我住在…);
# a statement further inside a clause is someone else's or a sub-clause (妈妈不让我叫…)
_LEAD_ZH = (r"^(?:其实|对了|那个|那|还有|而且|现在|反正|本来|所以|我说|我是说|就是|好吧|哦|啊|哈喽|你好|嗨|你听我说|听我说"
            r"|(?:我)?(?:想)?(?:跟你说|告诉你))?\s*")
_NAME_ZH = re.compile(
    rf"(?:{_LEAD_ZH}(?:我(?:其实|本来|就|真的)?叫|我的?(?:小|大|英文|全|真)?名字(?:呢|啊|呀)?(?:其实|就)?(?:是|叫)|我的?(?:小|大|英文|全|真)名(?:其实|就)?(?:是|叫)|我姓[\u4e00-\u9fff]{{1,2}}\s*(?:我)?叫)"
    r"|(?:^|可以|都|就|要)叫我|(?:^|都|就|们|家|人)管我叫)\s*([^\s，。,.！？!?；;、]{1,12})"
)
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
             "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤小阿")
_NAME_IS_ZH = re.compile(rf"^我(?:就)?是([{_SURNAMES}][\u4e00-\u9fff]{{1,2}})$")
# 我是五岁的朵朵: an age, then who the child is
# 我是思齐 我六岁: in a self-introduction, a given name without its surname is the child's too
_NAME_IS_INTRO_ZH = re.compile(r"^我(?:就)?是(?!老[大二三四幺]|第|小学生|学生|班长|队长|组长|大姐姐|大哥哥|男|女|新来的)([\u4e00-\u9fff]{2})(?<![货霸渣迷控粉精])$")
_AGED_NAME_ZH = re.compile(rf"^我(?:就)?是{ZH_NUM}岁(?:半)?的([\u4e00-\u9fff]{{2,3}})$")
# Characters a pretend role ends with (小老虎, 小兔子, 王子): not names
_NOT_A_NAME_ZH = re.compile(r"(?:男|女)(?:生|孩子?|的)$|男子汉$|(?:猫|狗|虎|兔|熊|龙|猪|鸟|鱼|马|羊|牛|猴|鸡|鸭|怪|人|侠|宝|子|王|主|曼|精|仙|兽|咪)$|^(?:了|过|着|什么|啥|它|他|她|你)")
# Characters children play at being: a role, never the child's name
_CHARACTERS_ZH = re.compile(r"^(?:孙悟空|猪八戒|沙和尚|沙僧|唐僧|哪吒|艾莎|喜羊羊|美羊羊|懒羊羊|灰太狼|光头强|熊大|熊二|葫芦娃|皮卡丘|"
                            r"哆啦A梦|海绵宝宝|派大星|佩奇|乔治|汪汪队|小猪佩奇|白雪公主|灰姑娘|米老鼠|唐老鸭|蜡笔小新)$")
# "我是X" introduces a name said alone (我是张伟) or after a greeting (哈喽我是刘小北), as "i'm X" does
# after hi; amid other talk it is as often a role in play (我是孙悟空 我有金箍棒)
# A line that also gives an age, a home or a birthday is a self-introduction: 我是周可欣 我住在杭州,
# i'm chloe i'm eight
_INTRO = re.compile(rf"(?:^|我|今年)(?:今年|现在)?(?:已经|才|马上就要|马上要|快要|就要|快)?{ZH_NUM}岁|我(?:家)?(?:住在|家在|来自)|我的生日"
                    r"|\bi(?:'m| am) (?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
                    r"|\bi live in\b|\bi(?:'m| am) from\b|\bmy birthday\b", re.I)
_NAME_INTRO_EN = re.compile(r"^(?:i'm|i am) ([a-z][a-z'-]+)$", re.I)
# "i'm Zoe" with the name written capitalised (as speech recognition writes names) is an introduction
# on its own; a nationality or a faith is not a name
_CAPITALISED_NAME_EN = re.compile(r"^(?:[iI]'m|[iI] am) (?!(?:American|British|English|Chinese|Japanese|Korean|Mexican|Canadian|"
                                  r"Australian|Indian|French|German|Spanish|Italian|Irish|Scottish|Welsh|Russian|Jewish|"
                                  r"Muslim|Christian|Catholic|Hindu|Buddhist)$)[A-Z][a-z'-]+$")
_GREETING_ZH = re.compile(r"你好|您好|哈喽|哈罗|嗨|大家好|介绍|认识一下|\b(?:hi|hello|hey)\b", re.I)
_NOT_A_NAME_EN = {"its", "it's", "not", "a", "an", "the", "what", "secret", "too", "so", "very", "really", "just", "going", "gonna",
                  "here", "there", "back", "home", "done", "sorry", "bored", "tired", "hungry", "fine", "ok", "okay",
                  "good", "great", "happy", "sad", "sick", "ready", "sleepy", "scared", "busy", "big", "little",
                  "nice", "also", "still", "in", "at", "on", "from", "with", "like", "and", "but", "no", "yes",
                  "hi", "hello", "cool", "fun", "funny", "late", "early", "awake", "asleep", "mad", "excited",
                  "i", "you", "me", "it", "this", "that", "my", "your", "his", "her", "silly", "angry",
                  "grumpy", "crazy", "lazy", "bossy", "pretty", "scary", "messy", "noisy", "sneaky",
                  "cranky", "fussy", "picky", "tiny", "heavy", "ugly", "lucky", "naughty", "smelly", "shy", "moody",
                  "goofy", "tall", "short", "old", "young", "mean", "kind", "smart", "strong", "fast", "slow", "loud",
                  "quiet", "sweet", "cute", "strict", "out", "gone", "away", "cold", "hot", "lost", "bad", "best", "our", "always", "never", "sometimes", "working", "sleeping"}
# "call me later", "call me when dinner is ready": a time or a clause after "call me" asks for a call, names no one
_NOT_A_NAME_EN |= {"pregnant", "expecting", "absent", "different", "important", "brilliant", "patient", "independent",
                   "confident", "upstairs", "downstairs", "outside", "inside", "asleep", "awake"}
_NOT_A_NAME_EN |= {"later", "tomorrow", "tonight", "soon", "again", "anytime", "sometime", "when", "whenever", "if",
                   "after", "before", "once", "up", "right", "now"}
_NAME_EN = re.compile(r"\b(?:my (?:real |full |first |english )?name(?:'s| is)|my nickname is|i'?m called|i am called|my name is actually"
                      r"|^(?:(?:you can|you could|please|just|and|so|hi|hello|hey) )*call me"
                      r"|^(?:everybody|everyone|people|all my friends|my friends) (?:all |just )?calls? me)\s+([a-z][a-z'-]+(?: [A-Z][a-z'-]+)?)", re.I)
_POLITE_TAIL_EN = re.compile(r"\s+(?:please|ok|okay|from now on|instead|now|then|too)\b.*$", re.I)
_NAME_HELLO_EN = re.compile(r"^(?:hi|hello|hey)(?: there)?,? (?:i'm|i am|it's me|it is me) "
                            # hi i'm mommy: a parent saying who they are to the child, not a name
                            r"(?!(?:mommy|mummy|mom|mum|mama|daddy|dad|papa|grandma|grandpa|nana|granny|grandad)$)([a-z][a-z'-]+)(?: again)?$", re.I)
_AGE_ZH = re.compile(rf"{_LEAD_ZH}(?:我(?:叫[\u4e00-\u9fff]{{1,4}}?(?=今年))?)?(?:今年|现在)?(?:马上就要|马上要|快要|就要|要|就是|就|是|已经|才|刚|快|都)?满?({ZH_NUM})周?岁")
# What may open an English statement before its "I" (and i'm six, hi i'm zoe, actually i live in…)
_LEAD_EN = r"^(?:(?:and|so|well|oh|yeah|yes|ok|okay|actually|hi|hello|hey|now|also|but|no|wait|see)\s+)*"
_AGE_EN = re.compile(_LEAD_EN + r"I(?:'m| am| just turned|'m turning| turned)(?: actually| really| almost| nearly| still)? ((?:\d{1,3})|[a-z]+(?:[\s-](?!now\b|today\b|already\b|like\b|next\b)[a-z]+)?)"
                     r"(?= years? old\b|\s*$| and (?:a half|a quarter|three quarters|a bit)\b| now\b| already$| last \w+$| this \w+$| today$"
                     r"|(?: like)? next (?:week|month|year)$)",
                     re.I)
_PLACE_ZH = re.compile(
    rf"{_LEAD_ZH}(?:我)?(?:是)?(?:们)?(?:家)?(?:就|也|都|一直都)?(?:(?:和|跟)(?:{_KIN_ZH}){{1,2}}(?:一起)?)?(?:现在|目前|一直|去年|今年|前年|最近)?(?:住在|来自|家在|家住在|家住|生活在|搬到了?|搬去了?|出生在|住(?=[\u4e00-\u9fff]{{2}}))\s*([^\s，。,.！？!?；;、]{{1,16}})"
    rf"|{_LEAD_ZH}(?:我)?(?:现在)?在([\u4e00-\u9fff]{{2,6}})住|^我是在([\u4e00-\u9fff]{{2,6}}?)(?:出生|生)的$|^我(?:的)?老家(?:是|在)([\u4e00-\u9fff]{{2,8}}?)(?:的|人)?$"
    rf"|^我(?:从小)?在([\u4e00-\u9fff]{{2,6}}?)长大(?:的)?$"
    rf"|^我(?:们|们家|家)?是(?:从([\u4e00-\u9fff]{{2,6}}?)(?:搬)?(?:过)?来|在([\u4e00-\u9fff]{{2,6}})出生)的$"
)
_PLACE_STOP = re.compile(r"和|跟|已经|了|的|呢|啊|呀|哦|工作|上班|不是|那个|附近|那边|这边|那旮旯|那块|那片|那里|这里|那儿|这儿|一带|边上|旁边|现在|后来|目前")
_PLACE_PEOPLE_ZH = re.compile(r"^我是([\u4e00-\u9fff]{2,4})人$")
# A floor, a room, a planet or someone's heart: not a town one lives in (十八楼, 地球, earth, 你心里)
_NOT_A_TOWN = re.compile(r"[楼层室里]$|^\d+$|^(?:自己家|家里|家)$|^(?:地球|月亮|月球|火星|太空|天上|海底|心里|你心里)|\bhome$|\b(?:earth|the moon|mars|space|outer space|"
                         r"my heart|your heart|the sky)\b", re.I)
_NOT_A_PLACE_ZH = re.compile(r"^(?:好|坏|大|小|机器|外星|超|巨|木头|雪|主|男|女|穷|富|老|新|客|家|本地|外地|一个|个|普通|南方|北方)$")
_PLACE_EN = re.compile(_LEAD_EN + r"(?:I|we|we all|me and my \w+|my \w+ and (?:I|me)|my family and I)"
                      r"(?:'ve| have)?(?: just| recently| now| still| actually| currently| all)?(?: was born in| stay in| live with (?:my|our) \w+(?: and \w+)? in| live near(?= .+ in [a-z])| come from| live in| am from|'m from|'re from| are from| grew up in| moved to| live at)\s+([a-z][\w'-]*(?: [a-z][\w'-]*){0,2})"
                       # the home said as a thing: our house is in brooklyn, my home is in leeds
                       r"|^(?:our|my) (?:house|home|flat|apartment) is in\s+([a-z][\w'-]*(?: [a-z][\w'-]*){0,2})$", re.I)
_NOT_A_HOME_EN = re.compile(rf"^(?:{'|'.join(MONTHS_EN)})$|\b(?:school|preschool|kindergarten|daycare|nursery|class|grade|work|church|camp|"
                            r"the park|the zoo|the hospital)$", re.I)
_PLACE_STOP_EN = re.compile(r"\s(?:not|and|but|with|now|because|since|for|near|too|right|city|i|we|so|anymore|though|from|mate|my|our|his|her"
                            r"|have|has|do|did|does|can|which|who|that|where|is|it's|its|like"
                            r"|in|on|by|next)\b.*$", re.I)
_BIRTHDAY_ZH = re.compile(rf"(?:我(?:的)?生日(?:是|在|(?:在)?[\u4e00-\u9fff]{{1,4}}?是)?|我是)\s*(?:(\d{{4}})年)?({ZH_NUM})月({ZH_NUM})[日号]?")
_MONTH_NAMES = "|".join(MONTHS_EN) + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
_BIRTHDAY_EN = re.compile(rf"\b(?:my birthday(?:'s| is)|I was born|I(?:'m| am) turning \w+)(?: (?:on|in))? (?:the )?(?:(?:in )?({_MONTH_NAMES}),? (?:on )?(?:the )?(\w+(?:[\s-]\w+)?)(?=\s|$)|(\w+(?:[\s-]\w+)?) of ({_MONTH_NAMES})"
                          r"|(\w+) ((?:\d{1,2}(?:st|nd|rd|th)?)|[a-z]+(?:[\s-][a-z]+)?))", re.I)
_GENDER_ZH = re.compile(r"^我是(?:一个|个)?(?:[\u4e00-\u9fff]{1,7}的)?(男生|女生|男的|女的|男孩|女孩|男孩子|女孩子|小男孩|小女孩|小男生|小女生|男子汉|女仔|男仔)(?:啦|咯|哦|呀)?$")
_GENDER = {"男生": "男", "男的": "男", "男孩": "男", "男孩子": "男", "小男孩": "男", "女生": "女", "女的": "女", "女孩": "女",
           "女孩子": "女", "小女孩": "女", "小男生": "男", "小女生": "女", "男子汉": "男", "女仔": "女", "男仔": "男", "girl": "女", "boy": "男",
           "sister": "女", "brother": "男"}
_GENDER_EN = re.compile(r"^I(?:'m| am) (?:a )?(?:big |little |good |baby )?(girl|boy|sister|brother)(?:(?<=boy|irl) now)?$", re.I)
_ROLE_NOUN = (r"工程师|学生|老师|教师|医生|护士|空姐|律师|程序员|设计师|会计|司机|厨师|警察|作家|记者|销售|经理|老板|"
              r"研究生|大学生|中学生|小学生|博士|投资者|开发者|画家|歌手|演员|公务员|农民|工人|主播|创业者|宝妈|全职妈妈|"
              r"左撇子|独生子|独生女|班长|队长|课代表|少先队员")
_ROLE_ZH = re.compile(rf"^我(?:是|当)(?:一名|一个|一位|个|名)?([^，。,.！？!?]{{0,10}}?(?:{_ROLE_NOUN}))$")
_WORKPLACE_ZH = re.compile(r"^我(?:现在|目前)?在([^，。,.！？!?]{1,12}?)(工作|上班|上学|读书|实习)$")
_SCHOOL_ZH = re.compile(r"^我(?:现在)?(?:在)?(?:读|上)小[一二三四五六]$|^我是[一二三四五六]年级(?:[一二三四五六七八九十\d]{1,2}班)?的?$|^我(?:现在)?(?:上|读)的是[\u4e00-\u9fff]{0,10}(?:幼儿园|小学|初中|[大中小]班|年级)$|(?:^我?|了)(?:现在|今年)?(?:在[^，。,.！？!?]{1,10}?)?(?:在)?(?:上|读)(?:幼儿园)?(?:[一二三四五六七八九\d]年级|幼儿园|小学|初中|高中|大学|[大中小]班)")
_LEARNING_ZH = re.compile(r"^我(?:现在|最近)?(?:在学|在练|学了|会)([\u4e00-\u9fff]{1,8}|[A-Za-z][\w ]{1,15})$")
_SKILL_ZH = re.compile(r"^我(?:上个月|去年|今年|最近|前几天)?(?:(?:已经|还不)?会|(?:刚|已经)?学会了?)(?:自己)?(?:骑|游|弹|拉|画|写|读|背|数|跳|唱|说|讲|做|下|打|滑|踢|系|折|搭|认|用|拼|吹|包|翻|穿|洗|刷|梳|扣|绑)[\u4e00-\u9fff]{0,8}了?$")
_WEARS_ZH = re.compile(r"^我(?:一直|从[\u4e00-\u9fff]{1,6}开始|现在)?(?:要|得)?(?:戴|带)(?:上)?(?:眼镜|牙套|助听器)了?$")
_JOINED_ZH = re.compile(r"^我(?:参加了|加入了|报了|在)[\u4e00-\u9fff]{0,8}(?:社团|兴趣小组|俱乐部|合唱团|乐团|足球队|篮球队|校队|队)$")
_ZODIAC_ZH = re.compile(r"^(?:我|(?=是属))(?:是)?属(?:小)?[鼠牛虎兔龙蛇马羊猴鸡狗猪](?:的)?$")
_SCHOOL_NAME_ZH = re.compile(r"^我(?:们|的)?(?:幼儿园|学校|小学|班)(?:的名字)?叫[\u4e00-\u9fff]{2,10}$")  # 我们幼儿园叫阳光幼儿园
_RETIRED_ZH = re.compile(r"^我(?:已经)?退休了?$")
_PET_ZH = re.compile(
    r"^(?:我(?:们)?(?:家)?|家)(?:里)?(?:还|也)?(?:有|养了|养着|养)(?:[一两二三四五几\d])?(?:只|条|匹|头)(?:小)?[\u4e00-\u9fff]{0,3}"
    r"(?:猫|狗|鱼|龟|兔|鼠|鸟|鸡|鸭|鹅|猪|马|羊|蛇|蚕|鹦鹉|八哥|蜥蜴|子|咪|金毛|泰迪|柯基|哈士奇|拉布拉多|柴犬|比熊|边牧)(?:(?:它)?(?:的)?(?:名字)?叫[\u4e00-\u9fff]{1,4}|会[\u4e00-\u9fff]{1,4})?$"
)
_ACTIVITIES_EN = (r"karate|ballet|swimming|swim|soccer|football|piano|gymnastics|dance|tennis|hockey|taekwondo|judo|chess|art|music|"
                  r"drama|scouts|cricket|rugby|netball|basketball|baseball|violin|guitar|tutoring|speech|ot|physio")
_JOBS_EN = (r"engineer|developer|programmer|teacher|nurse|doctor|architect|student|designer|"
            r"lawyer|accountant|driver|chef|cook|officer|firefighter|farmer|writer|journalist|manager|artist|musician|scientist|"
            r"dentist|pilot|mechanic|electrician|plumber|cashier|pharmacist|vet|veterinarian|professor|researcher|consultant|"
            r"mailman|mailwoman|cop|security guard|delivery driver|cleaner|welder|miner|paramedic|carer|caregiver|tradie|"
            r"analyst|housewife|mom|dad|mother|father|parent|retiree|waiter|waitress|soldier|librarian|secretary|coach|"
            r"photographer|translator|entrepreneur|police officer|policeman|policewoman|baker|builder|carpenter|painter|"
            r"principal|surgeon|paramedic|dancer|singer|actor|actress|businessman|businesswoman|banker|"
            r"salesman|saleswoman|clerk|janitor|fireman|truck driver|bus driver|postman|mail carrier|"
            r"hairdresser|barber|tailor|fisherman|gardener|zookeeper|astronaut|reporter|lifeguard|babysitter|nanny")
_ROLE_EN = re.compile(
    rf"^I(?:'m| am) (?:an? |retired\b)(?:[\w-]+ ){{0,2}}(?:{_JOBS_EN})?(?: (?:at|in|for|of) [\w .&'-]{{1,40}})?$",
    re.I,
)
_WORK_EN = re.compile(r"^I work (?:as|at|for|in) [\w][\w .&'-]{1,40}$", re.I)
_TRAIT_EN = re.compile(r"^I(?:'m| am) (?:lactose intolerant|gluten intolerant|vegetarian|vegan|diabetic|autistic|deaf|coeliac|celiac|"
                       r"colou?r ?blind|left-handed|right-handed|an only child|a twin|a vegetarian)$"
                       r"|^I(?:'m| am) (?:learning|taking) [\w ]{2,30}$|^I (?:wear|have to wear|got|just got) (?:glasses|braces|a hearing aid|hearing aids)"
                       r"(?: now| last \w+)?(?: since [\w ]{2,20})?$"
                       # a club, a team, an orchestra the child belongs to
                       r"|^I (?:just )?joined (?:the )?[\w ]{2,30}(?:club|team|choir|orchestra|band|scouts|brownies|cubs|guides)\b[\w ]{0,20}$"
                       r"|^I(?:'m| am) on the [\w ]{2,30}(?:team|squad)(?: in \w+)?$"
                       r"|^I (?:always |still )?(?:sleep|have to sleep) with (?:my|a) [\w ]{2,40}$"
                       r"|^I play (?:on|for) (?:a|the|my school'?s?|my) [\w ]{2,30}team$"
                       rf"|^I do (?:{_ACTIVITIES_EN})(?: and (?:{_ACTIVITIES_EN}))?$|^I(?:'m| am) an? \w+ belt$"
                       r"|^I play (?:the )?(?:violin|piano|cello|guitar|drums|flute|trumpet|clarinet|recorder|viola|ukulele|saxophone)$"
                       r"|^I(?:'m| am) in the [\w ]{0,20}(?:orchestra|band|choir)$"
                       r"|^I play (?:the )?(?:violin|piano|cello|guitar|drums|flute|trumpet|clarinet|recorder|viola|ukulele|saxophone)"
                       r" in (?:the |a |my )?[\w ]{0,20}(?:orchestra|band|choir)$", re.I)
_SCHOOL_EN = re.compile(r"^I(?:'m| am) in (?:the )?(?:\w+ grade|grade \w+|kindergarten|preschool|year \w+|reception|(?:mr|mrs|ms|miss) \w+ class)\b"
                        r"|^I go to [\w .'-]{0,30}(?:school|elementary|academy|kindergarten|preschool|daycare|nursery|primary|montessori)$", re.I)
# A skill is said of itself; "i can do it", "i can sing you a song", "i can play now", 我会打你 are about the moment
_MOMENT_SKILL = re.compile(r"你|\b(?:you|your|it|this|that|today|tonight|right now|again|too|later|mind)\b|\b(?:play|go|come|do)(?: now)?$", re.I)
_SKILL_EN = re.compile(r"^I (?:can(?: also| even)?|just learned (?:how )?to|learned (?:how )?to) (?:swim|ride|read|write|count|tie|whistle|skate|ski|spell|draw|dance|sing|cook|juggle|climb|"
                       r"speak|play|do|snap|skip|jump)\b[\w ]{0,40}$", re.I)
_ANIMALS_ZH = "猫猫|金毛|泰迪|柯基|哈士奇|拉布拉多|柴犬|比熊|边牧|橘猫|狸花猫|布偶猫|英短|狗|猫|小狗|小猫|狗狗|猫咪|兔子|小兔|仓鼠|乌龟|小乌龟|金鱼|小鱼|鹦鹉|小鸟|蜥蜴|小仓鼠|小熊|玩具熊|娃娃|布娃娃|玩偶"
_PET_NAME_ZH = re.compile(rf"^我(?:们)?(?:家)?(?:的|里的)?(?:那|这)?(?:只|条|个)?(?:{_ANIMALS_ZH})(?:的名字|名字)?(?:叫|是)[\u4e00-\u9fff]{{1,4}}$")
_TOY_NAME_EN = re.compile(r"^I (?:named|call|called) my (?:teddy(?: bear)?|bear|doll|toy \w+|stuffed \w+|\w+) [a-z][\w .'-]{1,20}$", re.I)
# Pets and the breeds children name them by
_PETS_EN = (r"dog|doggy|doggie|cat|puppy|kitten|kitty|hamster|fish|goldfish|rabbit|bunny|turtle|tortoise|parrot|budgie|cockatiel|bird|"
            r"guinea pig|lizard|gecko|bearded dragon|axolotl|ferret|hedgehog|chinchilla|gerbil|snake|frog|pony|horse|chicken|duck|"
            r"golden retriever|retriever|labrador|labradoodle|goldendoodle|cockapoo|cavapoo|lab|poodle|spaniel|terrier|jack russell|beagle|"
            r"collie|border collie|husky|pug|corgi|dachshund|sausage dog|chihuahua|shih tzu|bulldog|french bulldog|german shepherd|staffy|kelpie|chook")
_PET_NAME_EN = re.compile(rf"^(?:my|our) (?:pet |little |new )?(?:{_PETS_EN})"
                          r"(?:(?:'s name is|'s name's| is named| is called| name is) (?:(?:mr|mrs|miss|ms|dr|captain|princess|sir) )?[a-z][a-z'-]+"
                          # the name set beside the pet, then a habit of its own (my dog max loves tennis balls)
                          r"| (?!is\b|was\b|and\b|got\b|died\b|ran\b)[a-z][a-z'-]+ (?:(?:always |really )?(?:loves|likes|hates|eats|sleeps|chases|barks)\b"
                          r"|is (?:really |very |so |super )?(?:old|fat|fluffy|naughty|cute|big|tiny|small|lazy|cheeky)\b|is an? [a-z]+(?: [a-z]+)?$)[\w ]{0,30})$", re.I)
_PET_EN = re.compile(rf"^(?:I|we) (?:have|got|'ve got|have got) (?:an?|two|three|four|\d+) (?:pet |little |new )?(?:{_PETS_EN}|pupp(?:y|ie))"
                     r"(?:es|s)?\b.{0,30}$", re.I)
_HEALTH_ZH = re.compile(r"^(?:我)?(?:对)?[^，。,.！？!?]{1,12}过敏$|^我(?:有|患有|得了)(?:轻微的|一点)?(?:糖尿病|高血压|哮喘|气喘|心脏病|胃病|贫血|失眠|(?:过敏性)?鼻炎|湿疹|近视)$")
_HEALTH_EN = re.compile(r"^I(?:'m| am) allergic to (?!.*\b(?:what|wait|something|forgot|know)\b).{2,40}$|^I have (?:an? )?[\w -]{0,20}(?:allergy|diabetes|asthma|high blood pressure|heart condition|insomnia)$", re.I)
_ADVERBS_ZH = r"(?:平时|也|还|又|更|就|很|非常|特别|特|最|比较|超级|超|贼|巨|蛮|最近|真的|真|挺|好|可|一直|从小就|其实|现在|也很|都|还是|本来就)*"
_DISLIKE_ZH = r"最烦|一点都不喜欢|一点也不喜欢|不太喜欢|不怎么喜欢|最不喜欢|不喜欢|不爱吃|不爱喝|不爱看|不爱玩|不爱|最讨厌|讨厌|受不了|害怕|怕|不敢吃|吃不了"
_LIKE_ZH = re.compile(
    rf"^(?:其实|平时|反正|本来|所以|因为|对了|而且|就是|那|嗯)?(?:我)?(?:在[\u4e00-\u9fff]{{1,6}}?[里上])?{_ADVERBS_ZH}({_DISLIKE_ZH}|喜欢|爱吃|爱喝|爱看|爱玩|爱听|最爱|爱|热爱|偏好|迷上了)\s*(.{{1,24}})$"
)
_FAVOURITE_ZH = re.compile(r"^我(?:现在|平时)?(?:最)?(?:喜欢|爱)(?:吃|喝|看|玩|听)?的(?:[^，。是]{1,6})?是\s*(?:我的)?(.{1,16})$")
# the same said the other way round or of what is disliked: 恐龙是我最喜欢的, 我最不爱吃的就是茄子, 茄子是我最讨厌的
_LEAST_ZH = re.compile(r"^我(?:最)?(?:不喜欢|不爱|讨厌|害怕|怕)(?:吃|喝|看|玩|听)?的(?:[^，。是]{1,6})?是\s*(.{1,16})$")
# the thing said first, then who likes it: 草莓我最爱吃了, 青椒我最讨厌了
_TOPIC_FIRST_ZH = re.compile(rf"^(?!今天|明天|昨天|现在|刚才|以后|那|这|你|他|她|它|嗨|哈|嗯|啊|哦|呃|好|对|是|不|没|还|也|就|我)([\u4e00-\u9fff]{{1,8}}?)我{_ADVERBS_ZH}"
                             r"(一口都不吃|一点都不吃|不爱吃|不喜欢吃|不喜欢|讨厌吃|讨厌|不吃|不喝|爱吃|爱喝|爱看|爱玩|喜欢吃|喜欢喝|喜欢看|喜欢玩|喜欢|爱)(?:了|啦|呀)?$")
# 我一看到蛇就害怕: a fear of what is seen is a dislike
_FEAR_AT_ZH = re.compile(r"^我(?:一|每次)(?:看到|看见|见到|碰到|听到)([\u4e00-\u9fff]{1,6}?)(?:就|都)(?:好|很|特别)?(?:害怕|怕|想哭|哭)$")
_INTERESTED_ZH = re.compile(r"^我(?:一直)?对([\u4e00-\u9fff]{1,8}?)(?:特别|很|非常|超级|超|最|比较)?(?:感兴趣|有兴趣)$")  # 我对恐龙特别感兴趣
_FAVOURITE_AFTER_ZH = re.compile(r"^([^，。是我你他她它这那]{1,10}?)(?:就|才)?是我(?:最最|最)?(不喜欢|不爱|讨厌|喜欢|爱)(?:吃|喝|看|玩|听)?的"
                                 r"(?:[\u4e00-\u9fff]{1,4})?(?:了|啦|呀|哦)?$")
_LIKE_EN = re.compile(
    r"^(?:(?:and|so|also|oh|well|yeah|yes|because|cause|plus|and i|so i|oh i) )?(?:I )?"
    r"(?:really |also |do |totally |absolutely |just |still |super duper |super |so |actually |kinda |kind of |sort of )?"
    r"(don'?t (?:really )?like|do not like|don'?t enjoy|hate|dislike|can'?t stand|like|love|enjoy|prefer|adore)\s+"
    r"(?!.* (?:is|are) my (?:most )?favou?rite$)(.{1,40}?)(?:,? especially .+)?$",
    re.I,
)
# A boy or girl of the child's own age liked: a crush, kept out of memory (我喜欢隔壁班的男生, i like a boy in my class)
_PEER_ZH = re.compile(r"(?:男生|女生|男孩子?|女孩子?|男同学|女同学|同学|小哥哥|小姐姐)$|^(?:我们|隔壁|他们|她们)?班(?:上|里)?的")
_KIN_LIKED = re.compile(rf"^(?:我的?|我们家的?)?(?:{_KIN_ZH})$|^(?:my |our )?(?:{_KIN_EN})s?$", re.I)
_PEER_EN = re.compile(r"\b(?:a|the|this|that|one|some) (?:boy|girl|guy|kid)\b|\bsome(?:one|body)\b|\bin my class\b", re.I)
# 我不吃香菜, 我从来不喝牛奶: a food always refused is a dislike (not a meal or a medicine refused now)
_REFUSES_ZH = re.compile(r"^我(?:从来|从小就|一直|平时|都|也|就|根本)*不(吃|喝)(?!饭|东西|这|那|药|早|午|晚|零食|了|啦|它|你)([\u4e00-\u9fff]{1,5}?)(?:的)?$")
_TASTE_ZH = re.compile(r"^([\u4e00-\u9fff]{1,8}?)(?:最|太|好|真|超|特别)(难吃|难喝|好吃|好喝)(?:了|啦|呀)?$")
_SUBCLAUSE_ZH = re.compile(r"^(?:(?:吃|喝|看|玩|听|做)?的(?!是)|得|时|的时候|的话|死)")  # 爱死你了: a degree, not a thing liked
_SUBCLAUSE_EN = re.compile(r"^(?:if|because|that|called|named|is|was|are|were)\b", re.I)  # a question's leftover: …i like called again
_FEAR_EN = re.compile(r"^I(?:'m| am| get| always get) (?:really |so |very |kinda |kind of |a bit |a little )?(?:scared|afraid|frightened|terrified) of (.{2,30}?)"
                      r"(?: ever since .+| since .+| because .+| when .+)?$"
                      # the thing feared said first: thunderstorms scare me (not it, you, a person or someone's deed)
                      r"|^(?!(?:it|you|that|this|he|she|they|my|your|his|her|our|mom|dad|mommy|daddy|mum)\b)([a-z][a-z' ]{2,30}?)"
                      r" (?:really |always |kind of )?(?:scares?|frightens?|terrif(?:y|ies)) me(?: so much| so so much| a lot| like a lot)?(?: especially .+)?$"
                      # spiders are gross: a kind of thing (a plural), not people
                      r"|^(?!(?:you|they|we|these|those|my|your|our|his|her|guys|people|boys|girls)\b)([a-z]+s|geese|mice|sheep) are "
                      r"(?:so |really |super |very )?(?:gross|yucky|icky|disgusting|scary|creepy)(?: (?:they|it) [a-z]+.*)?$"
                      # broccoli is yucky: one kind of food or thing
                      r"|^(?!(?:it|that|this|you|he|she|my|your|our|his|her|school|today|everything)\b)([a-z]+(?: [a-z]+)?) is "
                      r"(?:so |really |super |very )?(?:gross|yucky|icky|disgusting|boring|scary|the worst)$"
                      r"|^I(?:'m| am) not (?:really |much of )?(?:a )?(?:big |huge )?fan of (?!you\b)(.{2,30})$"
                      r"|^I(?:'m| am) not (?:really )?into (?!you\b)(.{2,30}?)(?: anymore| any more)?$", re.I)
_FAVOURITE_EN = re.compile(r"\bmy (?:most |second |other )?favou?rite (?:[\w ]{1,30}? )?is (?!(?:you|it|that|this)\b)(?!.*\bones?$)(.{1,30})$|^(?!it\b|that\b|this\b|you\b)(?:i (?:like|love) .* no (?:the |a )?|(?!i\b))([\w ]{1,30}?) (?:is|are) my "
                           r"(?:most )?favou?rite\b|^I(?:'m| am) (?:really |so |super )?(?:into|a (?:big |huge )?fan of|obsessed with|crazy about) (.{2,30}?)(?: especially .+)?$"
                           r"|^what I (?:really )?(?:like|love)(?: (?:the )?(?:most|best))? is (.{2,30})$"
                           # pizza is the best food ever; not of a person or the companion (my mom is the best)
                           r"|^(?!(?:it|that|this|you|he|she|they|we|i|my|your|our|his|her|mom|dad|mommy|daddy)\b)([a-z]+(?: [a-z]+)?) (?:is|are) "
                           r"the best (?:food|thing|snack|game|toy|color|colour|animal|fruit|dessert|show|movie|sport|holiday|day)s?(?: ever| in the world)?$"
                           # chocolate ice cream is the best: a thing (two or three words, no person, no capital) is the best
                           r"|^(?!(?:it|that|this|you|he|she|they|we|i|my|your|our|his|her|mom|dad|mommy|daddy|mum|school|today)\b)"
                           r"([a-z]+ [a-z]+(?: [a-z]+)?|[a-z]{3,}) (?:is|are) the best(?: ever)?$"
                           # the other way round: the best thing ever is ice cream
                           r"|^the best (?:food|thing|snack|game|toy|animal|show|movie|sport)(?: ever| in the world)? is (?!(?:you|my|your|our)\b)(.{2,30})$"
                           # i think sharks are so cool: a kind of thing (a plural), not a person or the companion
                           r"|^(?:I (?:think|reckon) )?(?!(?:you|they|we|these|those|my|your|our|his|her|guys|people|boys|girls)\b)([a-z]+s) are "
                           r"(?:so |really |super |very )?(?:cool|awesome|amazing)$", re.I)
_DISLIKE_VERBS = ("最烦", "不喜欢", "一点都不喜欢", "一点也不喜欢", "不太喜欢", "不怎么喜欢", "最不喜欢", "不爱吃", "不爱喝", "不爱看",
                  "不爱玩", "不爱", "最讨厌", "讨厌", "受不了", "害怕", "怕", "不敢吃", "吃不了", "hate", "dislike", "can't stand", "cant stand",
                  "do not like", "don't enjoy", "dont enjoy")
_DECISION_ZH = re.compile(r"决定|选择了|最终用|确定用")
_DECISION_EN = re.compile(r"\bI(?:'ve| have)? decided\b|\bI(?:'ll| will) go with\b|\bI chose\b", re.I)
_IMPORTANT = re.compile(r"^(?:重要|记住)[：:]\s*|^(?:important|remember):\s*", re.I)
_NEGATED = re.compile(r"不是|不叫|不住|没有|\bnot\b|n't\b|\bnever\b", re.I)


def _unstutter(name: str) -> str:
    """吴吴梓轩 → 吴梓轩, 李李娜 → 李娜: a surname said twice before the given name."""
    return name[1:] if len(name) in (3, 4) and name[0] == name[1] and name[0] in _SURNAMES[:-2] else name


def _unspell(value: str) -> str:
    """乐乐快乐的乐 → 乐乐, 王小明小明的明是明天的明 → 王小明, 张小雨弓长张 → 张小雨: a name said with how one of its characters is written."""
    for k in (2, 3):
        head, tail = value[:k], value[k:]
        said = re.fullmatch(r"(?:[\u4e00-\u9fff]{1,3}的[\u4e00-\u9fff](?:就)?是)?[\u4e00-\u9fff]{1,3}的([\u4e00-\u9fff])", tail)
        if said and said.group(1) in head or len(tail) == 3 and tail[2] == head[0] and head[0] in _SURNAMES[:-2]:
            return head
    return value


def _name_zh(value: str) -> str:
    value = _unspell(re.sub(r"^做(?=[\u4e00-\u9fff]{2})", "", value))  # 我的名字叫做王梓涵
    stop = _NAME_STOP.search(value, 1)
    return _unstutter(_TAIL_ZH.sub("", value[: stop.start()] if stop else value))


# Days with a name of their own that a birthday may fall on (i was born on christmas day, 我是儿童节生的)
_NAMED_DAYS = {"christmas eve": "12-24", "christmas": "12-25", "new year's day": "01-01", "new year's eve": "12-31",
               "halloween": "10-31", "valentine's day": "02-14", "圣诞节": "12-25", "平安夜": "12-24", "元旦": "01-01",
               "儿童节": "06-01", "国庆节": "10-01", "情人节": "02-14", "万圣节": "10-31", "劳动节": "05-01"}
_NAMED_DAY_BIRTHDAY = re.compile(
    rf"^(?:my birthday(?:'s| is)|i was born)(?: on)? ({'|'.join(k for k in _NAMED_DAYS if k.isascii())})(?: day)?$"
    rf"|^我(?:的)?生日(?:是|在)?({'|'.join(k for k in _NAMED_DAYS if not k.isascii())})(?:那天)?$"
    rf"|^我是({'|'.join(k for k in _NAMED_DAYS if not k.isascii())})(?:那天)?(?:出生|生)的$", re.I)


def _birthday(clause: str) -> str | None:
    """MM-DD (or YYYY-MM-DD), the only forms the device takes; None when the words are not a date."""
    named = _NAMED_DAY_BIRTHDAY.match(clause)
    if named:
        return _NAMED_DAYS[next(g for g in named.groups() if g).lower()]
    m = _BIRTHDAY_ZH.search(clause)
    if m:
        if m.re is _BIRTHDAY_ZH and clause.startswith("我是") and not re.search("出生|生的|[日号]生日$", clause):
            return None
        year, month, day = m.group(1), zh_number(m.group(2)), zh_number(m.group(3))
    else:
        m = _BIRTHDAY_EN.search(clause)
        if not m:
            return None
        month_word, day_text = ((m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3)) if m.group(3)
                                else (m.group(5), m.group(6)))
        month = next((i + 1 for i, name in enumerate(MONTHS_EN) if name.startswith(month_word.lower()[:3])), None)
        # "july fourth like the fireworks": the day is the number words, not what is said after them
        year, day = None, en_number(day_text) or en_number(day_text.split()[0])
    if not month or not day:
        return None
    try:
        date(int(year) if year else 2000, month, day)  # 2000: Feb 29 is a birthday too
    except ValueError:
        return None
    return f"{year}-{month:02d}-{day:02d}" if year else f"{month:02d}-{day:02d}"


def _identity_zh(clause: str, writes: list[dict], greeted: bool = False, introduced: bool = False) -> None:
    m = (_NAME_ZH.search(clause) or (None if _ROLE_ZH.search(clause) or not greeted else _NAME_IS_ZH.search(clause))
         or _AGED_NAME_ZH.search(clause) or (None if _ROLE_ZH.search(clause) or not introduced else _NAME_IS_INTRO_ZH.search(clause)))
    if m and clause[m.start(1):].startswith(_name_zh(m.group(1)) + "的"):
        m = None  # 我叫小明的那个同学: a relative clause about someone, not the child's name
    if m:
        name = _name_zh(m.group(1))
        # 我叫妈妈来了: the verb calls someone, the kin word is no name
        full_name = len(name) == 3 and name[0] in _SURNAMES[:-2]  # 李小龙: a surname and a given name
        full_name = full_name or (m.re is _NAME_ZH and len(name) == 3 and name[0] == name[1])  # 小小鱼: a nickname
        if (name and (full_name or not _NOT_A_NAME_ZH.search(name)) and not _CHARACTERS_ZH.match(name)
                and not re.match(rf"(?:{_KIN_ZH}|{_OTHERS_ZH})", name)
                and not (m.re in (_NAME_IS_ZH, _AGED_NAME_ZH, _NAME_IS_INTRO_ZH) and _NOT_A_NAME_ZH.search(m.group(1)))
                and not (m.re is _AGED_NAME_ZH and re.search(r"[孩生朋友宝娃人]", name))):
            writes.append(opslib.write("name", name))
    m = _AGE_ZH.search(clause)
    if m and "不是" not in clause and not re.match(r"的时候|那年|时", clause[m.end():]):  # 我三岁的时候: a time, not an age
        age = zh_number(m.group(1))
        if age is not None and 0 < age < 130:
            writes.append(opslib.write("age", str(age)))
    m = _PLACE_ZH.search(clause)
    if re.search(r"(?:去年|前年|以前|小时候)(?:住在|家在|家住|生活在|住)", clause):
        m = None  # 我去年住在上海: a home left behind (我去年搬到了上海 is where one lives now)
    if m and not _NEGATED.search(clause[: m.start() + 3]):
        said = next(g for g in m.groups() if g)
        stop = _PLACE_STOP.search(said, 1)
        value = said[: stop.start()] if stop else said
        value = _said_once(value)
        # 住得离学校很近: how, not where; 生在北京长在上海: two towns and no saying which is home
        if (value and not _NOT_A_TOWN.search(value) and (len(value) > 1 or "住在" in clause) and not _NOT_A_TOWN.search(said) and value[0] not in "得的了着"
                and not re.search("长在|长大", said) and not said.startswith("一起")):  # 住得离学校很近, 和妈妈住在一起: how, not where
            writes.append(opslib.write("location", value))
            # 我出生在广州现在住在北京: born in one town, living in another
            moved = re.search(r"(?:现在|后来|目前)(?:(?:住在|搬到了?|搬去了?)([\u4e00-\u9fff]{2,6}?)了?|在([\u4e00-\u9fff]{2,6}?)住)$", clause[clause.find(value, m.start()) + len(value):])
            town = moved and (moved.group(1) or moved.group(2))
            if town and not _NOT_A_TOWN.search(town):
                writes.append(opslib.write("location", town))
    m = _PLACE_PEOPLE_ZH.search(clause)
    if (m and not _NOT_A_PLACE_ZH.search(m.group(1)) and not _NOT_A_TOWN.search(m.group(1))
            and not re.search(_ROLE_NOUN, m.group(1) + "人")
            and not re.search("[你我他她的]", m.group(1))):
        writes.append(opslib.write("location", m.group(1)))
    m = _GENDER_ZH.search(clause)
    if m:
        writes.append(opslib.write("gender", _GENDER[m.group(1)]))
    elif (_ROLE_ZH.search(clause) or _WORKPLACE_ZH.search(clause) or _RETIRED_ZH.search(clause)
          or _SCHOOL_ZH.search(clause) or _SKILL_ZH.search(clause) and not _MOMENT_SKILL.search(clause) or _PET_ZH.search(clause)
          or _PET_NAME_ZH.search(clause) or _ZODIAC_ZH.search(clause) or _WEARS_ZH.search(clause) or _JOINED_ZH.search(clause) or _SCHOOL_NAME_ZH.search(clause)
          or (_LEARNING_ZH.search(clause) and not _SKILL_ZH.search(clause) and "在学" in clause)):
        said = re.sub(r"^我(?:们|的)?(?=幼儿园|学校|小学|班)", "我的", clause) if _SCHOOL_NAME_ZH.search(clause) else clause
        writes.append(opslib.write("fact", third_person(re.sub(r"^我(?:是|当)(?:一名|一个|一位|个|名)", "我是", said))))


def _identity_en(clause: str, writes: list[dict], introduced: bool = False) -> None:
    m = _NAME_EN.search(clause) or _NAME_HELLO_EN.search(clause) or (_NAME_INTRO_EN.search(clause) if introduced or _CAPITALISED_NAME_EN.match(clause) else None)
    if m and m.re is _NAME_INTRO_EN and _NOT_A_NAME_WORD.search(m.group(1).lower()):
        m = None  # i'm excited, i'm hungry…: a state, not a name
    if m:
        first = m.group(1).split()[0]
        # what follows the name, less a polite tail (jojo please, bear from now on)
        after = _POLITE_TAIL_EN.sub("", clause[m.start(1) + len(first):]).strip()
        # after "call me" the name ends what is said, one more name word at most; more words make it a
        # phone call (call me mike when you land)
        calling = m.group(0).lower().startswith("call me") and len(after.split()) > 1
        if first.lower() not in _NOT_A_NAME_EN and en_number(first.lower()) is None and not calling:
            second = m.group(1).split()[1:]
            joined = second and after.split()[:1] == second and second[0].lower() not in _NOT_A_NAME_EN
            name = f"{first} {second[0]}" if joined else first
            writes.append(opslib.write("name", _title(name)))
    m = _AGE_EN.search(clause)
    if m and not _NEGATED.search(clause):
        age = en_number(m.group(1)) if not m.group(1).isdigit() else int(m.group(1))
        if age and 0 < age < 130:
            writes.append(opslib.write("age", str(age)))
    m = _PLACE_EN.search(clause)
    if m and not _NEGATED.search(clause[: m.start() + 8]):
        said = m.lastindex
        place = _PLACE_STOP_EN.sub("", m.group(said)).strip()
        called = re.match(r"(?:a|the) (?:little |small |big )?(?:town|city|village|place) (?:called|named) ([a-z][\w'-]*)", clause[m.start(said):], re.I)
        if called:  # "in a town called springfield": the town's name
            place = called.group(1)
        if re.match(r"(?:a|an|the|my|our)\b", place, re.I):  # "in a big house in miami": the place is the last "in"
            later = re.search(r"\bin ([a-z][\w'-]*(?: [a-z][\w'-]*)?)$", clause[m.start(said):], re.I)
            place = _PLACE_STOP_EN.sub("", later.group(1)).strip() if later else ""
        # "i'm from kindergarten", "we live at school": a place one goes to by day, not a home town
        if (place and place.lower() not in ("a", "the", "here", "there", "my", "our") and not _NOT_A_HOME_EN.search(place)
                and not _NOT_A_TOWN.search(place)):
            writes.append(opslib.write("location", _title(place)))
    m = _GENDER_EN.search(clause)
    if m:
        writes.append(opslib.write("gender", _GENDER[m.group(1).lower()]))
    elif (_ROLE_EN.search(clause) or _WORK_EN.search(clause) or _SCHOOL_EN.search(clause)
          or _SKILL_EN.search(clause) and not _MOMENT_SKILL.search(clause) or _TRAIT_EN.search(clause)
          or _PET_NAME_EN.search(clause) or _TOY_NAME_EN.search(clause)
          or _PET_EN.search(clause)) and not _HEALTH_EN.search(clause) and not _NEGATED.search(clause):
        writes.append(opslib.write("fact", third_person(clause)))


_BIRTHDAY_TODAY = re.compile(r"^(今天|明天|后天)(?:就)?是我(?:的)?生日(?:了|哦|呀)?$|^(today|tomorrow)(?:'s| is) my birthday$", re.I)
_BIRTHDAY_ON_A_DAY = re.compile(r"^((?:下个?|这个?)?(?:周|星期|礼拜)[一二三四五六日天]|(?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))"
                                r"(?:就)?(?:是我(?:的)?生日(?:了|啦|哦|呀)?| is my birthday)$"
                                r"|^my birthday(?:'s| is) (?:on )?((?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))$", re.I)
_BIRTHDAY_NEXT_MONTH = re.compile(rf"^下个?月({ZH_NUM})[号日](?:就)?是我(?:的)?生日(?:了|哦|呀)?$")


def _identity(clause: str, writes: list[dict], greeted: bool = False, now: datetime | None = None, introduced: bool = False) -> None:
    if HAN.search(clause):
        _identity_zh(clause, writes, greeted, introduced)
    else:
        _identity_en(clause, writes, greeted)
    relative = _BIRTHDAY_TODAY.match(clause)
    on_a_day = _BIRTHDAY_ON_A_DAY.match(clause) if now is not None and not relative else None
    day_said = on_a_day and (on_a_day.group(1) or on_a_day.group(2))
    when = parse_when(day_said, now) if day_said and not re.search(r"[\d一二三四五六七八九十]{1,3}[号日]|\d", day_said) else None
    if relative and now is not None:  # 明天是我的生日, tomorrow is my birthday: that day's date
        offset = {"今天": 0, "明天": 1, "后天": 2, "today": 0, "tomorrow": 1}[(relative.group(1) or relative.group(2)).lower()]
        writes.append(opslib.write("birthday", (now + timedelta(days=offset)).strftime("%m-%d")))
    elif when:  # 下周日就是我的生日, next friday is my birthday: that day's date
        writes.append(opslib.write("birthday", when[0][5:10]))
    elif _BIRTHDAY_NEXT_MONTH.match(clause) and now is not None:  # 下个月十号是我的生日: the day in next month
        day = zh_number(_BIRTHDAY_NEXT_MONTH.match(clause).group(1))
        month = now.month % 12 + 1
        if day:
            try:
                writes.append(opslib.write("birthday", date(2000, month, day).strftime("%m-%d")))
            except ValueError:
                pass  # 下个月三十一号 in a month of thirty days names no day
    elif re.search(r"生日|出生|生的|\bbirthday\b|\bborn\b|\bturning\b", clause, re.I) and not _NEGATED.search(clause):
        when = _birthday(clause)
        if when:
            writes.append(opslib.write("birthday", when))


def _preferences(clause: str, writes: list[dict]) -> None:
    zh = bool(HAN.search(clause))
    # 我以前喜欢粉色现在喜欢紫色: what is liked now is what counts
    now = re.match(r"^我(?:以前|原来|小时候)[^，。]*?(?:现在|后来)(?:我)?(.+)$", clause) if zh else None
    if now:
        clause = "我" + now.group(1)
    favourite = (_FAVOURITE_ZH if zh else _FAVOURITE_EN).search(clause)
    if favourite:
        said = favourite.group(1) if zh else next(g for g in favourite.groups() if g)
        if not zh:  # i'm really into pokemon right now: when is not what
            said = re.sub(r" (?:right now|at the moment|these days|now)$", "", said, flags=re.I) or said
        # "my favorite food is mac and cheese": one favourite is one thing; "favorites are" may be several
        one = not zh and favourite.group(1) is not None and not re.search(r"favou?rites\b", clause, re.I)
        if re.search(r"[这那](?:一|个|段|次|本|集)", said):
            return  # 我最喜欢的是放烟花那一段: a part of what was just told or seen
        # "i'm a big fan of you": about the companion, not a liking to keep
        writes.extend(opslib.write("like", item) for item in ([_clean(said, zh)] if one else _items(said, zh))
                      if not re.search(r"你|您|\byou\b", item, re.I))
        return
    turned = (_LEAST_ZH.search(clause) or _FAVOURITE_AFTER_ZH.search(clause) or _TOPIC_FIRST_ZH.search(clause)
              or _FEAR_AT_ZH.search(clause) or _INTERESTED_ZH.search(clause)) if zh else None
    if turned:
        thing = turned.group(1)
        verb = "不" if turned.re in (_LEAST_ZH, _FEAR_AT_ZH) else "喜欢" if turned.re is _INTERESTED_ZH else turned.group(2)
        verb = re.sub("[吃喝看玩]$", "", verb)
        kind = "like" if verb in ("喜欢", "爱") else "dislike"
        writes.extend(opslib.write(kind, item) for item in _items(thing, zh) if not _KIN_LIKED.match(item))
        return
    refuses = _REFUSES_ZH.match(clause) if zh else None
    if refuses and not refuses.group(2).endswith(("了", "啦", "呢", "吧")):
        writes.append(opslib.write("dislike", refuses.group(2)))
        return
    taste = _TASTE_ZH.match(clause) if zh else None
    if taste and not re.match(r"[这那你它今昨明]", taste.group(1)):  # 胡萝卜最难吃了: a thing judged by taste
        kind = "dislike" if taste.group(2).startswith("难") else "like"
        writes.append(opslib.write(kind, taste.group(1)))
        return
    fear = None if zh else _FEAR_EN.search(clause)
    if fear:
        writes.extend(opslib.write("dislike", item) for item in _items(fear.group(fear.lastindex), zh))
        return
    m = (_LIKE_ZH if zh else _LIKE_EN).search(clause)
    if not m:
        return
    verb = m.group(1).lower()
    kind = "dislike" if verb in _DISLIKE_VERBS or verb.startswith(("don't", "dont")) else "like"
    value = m.group(2) if zh else re.sub(r"^(?:(?:really|so|just) )?(?:like|love) ", "", m.group(2), flags=re.I)
    if not zh:  # "i hate it when it rains": the "it" stands for the weather that follows (not for what a person does);
        # "i love it when we go to the beach": an outing the family takes
        value = re.sub(r"^it when (?=(?:it|there)\b|we (?:go|get to go|visit)\b)", "when ", value, flags=re.I)
        # "i like playing roblox with my friends": who it is done with is not the thing liked
        alone = re.sub(r" (?:with (?:my|our) (?:\w+ )?(?:friends?|family|mom|mum|dad|brother|sister|cousins?|grandma|grandpa)"
                       r"|at (?:recess|playtime|break|lunch|school|home))$",
                       "", value, flags=re.I)
        value = alone if " " in re.sub(r"^to ", "", alone) else value  # "playing with my friends" stays whole: playing alone says little
    if _SUBCLAUSE_ZH.match(value) if zh else _SUBCLAUSE_EN.match(value):
        return  # 我喜欢的时候…, 我喜欢的话…: the verb opens a sub-clause, it names no liking
    if zh:  # 我吃不了香菜一吃就吐: what happens at a taste is the reason, not the thing
        value = re.split(r"一(?:吃|喝|看|闻|听|碰|见)就", value)[0] or value
        # 我不喜欢吃青菜妈妈老让我吃: a new subject with its own deed ends the thing
        value = re.split(rf"(?<=[\u4e00-\u9fff])(?=(?:{_KIN_ZH}|老师)(?:老|总|都|也|还|又|说|让|叫|非|每次|天天))", value)[0] or value
    if zh and kind == "like":  # 我喜欢小汽车特别喜欢挖掘机: a second liking said with its own verb
        value = re.sub(r"(?<=[\u4e00-\u9fff])了?(?:特别|尤其|更|最)(?:喜欢|爱)(?=[\u4e00-\u9fff])", "和", value)
    # 我最喜欢奥特曼了特别是迪迦: one of the kind is singled out, a liking too
    singled = re.search(r"了?(?:特别是|尤其是)([\u4e00-\u9fff]{1,8})$", value) if zh and kind == "like" else None
    if singled:
        value = value[: singled.start()] + "和" + singled.group(1)
    for item in _items(value, zh):
        # "I like it here", "I love you so much", "我爱你们", "我喜欢你小智": about the moment, not a liking
        first = item.lower().split(" ")[0]
        # nor a liking of the companion itself (我喜欢和你聊天, i like talking to you)
        if (item.lower() in _NOT_A_LIKING or first in _NOT_A_LIKING or item[:1] in "你您他她它这那"
                or re.search(r"你|您|\byour?\b", item, re.I) or (_PEER_ZH if zh else _PEER_EN).search(item)
                or _KIN_LIKED.match(item)  # 我爱我妈妈, i love my mommy: affection, not a preference
                or re.search(r"\b(?:outside|out there|right now|today|tonight|in here|over there)$", item, re.I)
                or re.match(r"(?:我的新|my new\b)", item, re.I)  # 我的新书包, my new backpack: a new thing of the moment
                # a choice between things at hand: the red one better, 红色的那个
                or re.search(r"\b(?:one|ones)\b(?: better| more)?$|\bbetter$|[这那](?:个|一个|些)$", item, re.I)
                or verb in ("怕", "害怕") and re.match(rf"(?:{_KIN_ZH}|他|她|别人|老师)", item)):  # 我怕妈妈生气: a worry
            continue
        writes.append(opslib.write(kind, item))


# --- other people ---------------------------------------------------------------------------------

_PERSON_ZH = re.compile(rf"^(?:我们家|我家|我的|我们(?=班主任)|孩子的(?=班主任|老师)|我(?:幼儿园|学校)(?:的|里)?(?=最好的朋友|好朋友)|我|孩子(?:他|她|的)?(?=爸|妈))?(?:的)?(?:(?:有)?(?:一个|一位|个)?)(?:双胞胎)?((?:{_KIN_ZH})(?:和|跟)?(?:{_KIN_ZH})|{_KIN_ZH}|{_OTHERS_ZH}|宝宝|宝贝|孩子)")
# A parent speaks of the child's people as 他/她的…, his/her… (他爸爸在外地工作, her grandma is called margaret):
# with no one else named before, they are the user's, said as the child would (我爸爸…, my grandma…)
_THEIR_KIN_ZH = re.compile(r"^(?:他|她)(?!妈的)(?=(?:的)?(?:有(?:一)?个)?(?:双胞胎)?(?:(?!儿子|女儿|闺女|老婆|妻子|老公|丈夫|孙子|孙女)"
                           rf"(?:{_KIN_ZH})|{_OTHERS_ZH}))")
_THEIR_KIN_EN = re.compile(r"^((?:(?:so|and|also|but|plus) )*)(?:his|her)(?= (?!son\b|daughter\b|wife\b|husband\b|boy\b)"
                           rf"(?:(?:{_KIN_EN}|{_OTHERS_EN})s?|grandparents)\b)", re.I)
_NAMED_FIRST_ZH = re.compile(rf"^([\u4e00-\u9fff]{{2,3}}?)(?:家(?:里)?有(?:一|两|三)?(?:只|条)[\u4e00-\u9fff]{{1,6}}"
                             rf"|有(?:轻微的|一点)?(?:哮喘|气喘|湿疹|鼻炎|近视|糖尿病)|对[\u4e00-\u9fff]{{1,8}}过敏"
                             rf"|是我(?:们)?家的(?:{_ANIMALS_ZH}))$")
_PEER_NAMED_ZH = re.compile(r"^(?:我们|隔壁)?(?:班|幼儿园|学校)(?:上|里)?的[\u4e00-\u9fff]{1,3}$")  # 我们班的小红: a classmate
_PRONOUN_ZH = re.compile(r"^(?:他|她)(?!们)")
_FAMILY_NAME_ZH = re.compile(r"^(?:她|他)?(?:是(?:一)?个(?:女生|男生|女孩子?|男孩子?|小女孩|小男孩|小姐姐|小哥哥))?(?:也|就|的名字|的小名|的大名|名字|大名|小名)?(?:叫|是叫|名叫|的名字是|的小名叫|姓(?=[\u4e00-\u9fff]$))\s*([^\s，。,.！？!?；;、和我]{1,8})")
# What another person "是": a job or calling (护士, 消防员, 开火车的), where they are from (上海人), or a
# friend's name (最好的朋友是小胖) -- not a name called in play or anger (大坏蛋, 小懒虫)
_OTHER_ROLE_ZH = (rf"(?:隔壁|楼下|楼上|对门|我们班|班上|幼儿园|小区)的[\u4e00-\u9fff]{{2,3}}|[\u4e00-\u9fff]{{0,8}}(?:{_ROLE_NOUN})|[\u4e00-\u9fff]{{0,6}}[师员生家手工长官士夫匠警兵军者民察医]"
                  rf"|[\u4e00-\u9fff]{{1,4}}人|[\u4e00-\u9fff]{{1,6}}的|(?:小|阿)[\u4e00-\u9fff]{{1,2}}|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}"
                  # a doubled name (朵朵, 乐乐), not a pet word or a baby word said in play (猪猪, 宝宝)
                  r"|(?![猪狗猫虫宝熊兔鸭鸡牛羊哈嘿呵嘻])(?P<doubled>[\u4e00-\u9fff])(?P=doubled)")
_TRAIT_ZH = (r"胖|瘦|高|矮|凶|调皮|皮|乖|聪明|厉害|温柔|严格|严|懒|勤快|能吃|爱哭|爱笑|胆小|胆大|活泼|安静|内向|外向|害羞"
             r"|老实|大方|小气|幽默|能干|会[\u4e00-\u9fff]{1,4}")
# What someone just named is like, said after them (下棋可厉害了, 他特别调皮, 皮得很): it joins what was said of them
_TRAIT_PREDICATE_ZH = re.compile(rf"^(?:就|也|还)?[\u4e00-\u9fff]{{0,4}}?(?:可|特别|很|非常|超级|超|挺|真|太)+(?:{_TRAIT_ZH})(?:了|啦|的)?$"
                                 rf"|^(?:{_TRAIT_ZH})得很$")
_PREDICATE_ZH = re.compile(
    rf"^(?:今年|现在|以前|退休前|也|还|都|特别|很|非常|最|超|比较|一直|就是|就|才|已经|有点|有一点|好像|快|刚满|满|刚|从小就|从小|平时|晚上|贼|最近(?:呢|啊)?)*"
    rf"(?:是(?:一名|一个|一位|个|名)?(?:我们班的|我们学校的)?(?!不|我|你|谁|什么|坏|好|笨|傻|懒|胆小|小气|大坏|超)(?:{_OTHER_ROLE_ZH})"
    rf"|在[\u4e00-\u9fff]{{1,10}}(?:上班|工作|上学|读书|教书|开|当|种|卖|打工)[\u4e00-\u9fff]{{0,6}}|在(?:上|读)[\u4e00-\u9fff]{{1,5}}|在学[\u4e00-\u9fff]{{1,6}}"
    rf"|是左撇子|是早产儿|晕车|晕船|挑食|在换牙|乳糖不耐受|(?:左|右)?(?:耳朵|眼睛)?(?:听力|视力|身体|肠胃|体质)(?:不太好|不好|比较弱|比较差|有点弱|弱|差)|迷上了?[\u4e00-\u9fff]{{1,8}}|在[\u4e00-\u9fff]{{2,8}}(?:上|读)[一二三四五六]年级[\u4e00-\u9fff]{{0,3}}"
    rf"|(?:住在|家在|来自)[\u4e00-\u9fff]{{1,10}}|在[\u4e00-\u9fff]{{2,6}}住"
    # where someone is, said of a country, a province or a town (小姨在美国), not of a room or a moment (在家, 在睡觉)
    rf"|在(?:[\u4e00-\u9fff]{{1,4}}(?:国|省|市|州|县|镇|村)|乡下|老家|国外|外地|北京|上海|广州|深圳|天津|重庆|成都|杭州|南京|武汉|西安|香港|台湾"
    rf"|加拿大|澳大利亚|澳洲|日本|新加坡|新西兰|俄罗斯|意大利|西班牙|马来西亚|欧洲|非洲)(?:留学|读书|工作|上班|生活|定居)?"
    rf"|(?:{_DISLIKE_ZH}|喜欢|爱吃|爱喝|爱看|爱玩|爱|热爱)(?![我你])[\u4e00-\u9fff]{{1,12}}"
    rf"|(?:在[\u4e00-\u9fff]{{1,6}})?养(?:了|着)?[\u4e00-\u9fff]{{1,8}}|家有好多[\u4e00-\u9fff]{{1,6}}|{ZH_NUM}多?岁[\u4e00-\u9fff]{{0,8}}|(?:也|一直)?戴(?:眼镜|牙套|助听器)"
    # where they live by the child's home (就住我家楼上), what they study (学医的) and where they moved (转学去上海了)
    rf"|住(?:在)?我(?:们)?家(?:楼上|楼下|隔壁|对门|对面|旁边)|学[\u4e00-\u9fff]{{1,3}}的|(?:转学|搬家|搬)(?:去|到)了?[\u4e00-\u9fff]{{2,6}}"
    rf"|(?:家)?有(?:一|两|三|几)?(?:只|条|匹|辆|架)[\u4e00-\u9fff]{{1,6}}"
    rf"|(?:在[\u4e00-\u9fff]{{1,10}})?(?:上|读)(?:[一二三四五六七八九\d]年级|幼儿园|小学|初中|高中|大学|(?:幼儿园)?[大中小]班|[初高][一二三])"
    rf"|(?:不吃|不能吃|不喝|不能喝|只吃)[\u4e00-\u9fff]{{1,8}}|(?:有|患有|得了)?(?:糖尿病|高血压|哮喘|气喘|心脏病|胃病|贫血|失眠|鼻炎|湿疹|近视|蛀牙)|乳糖不耐受?[\u4e00-\u9fff]{{0,8}}|(?:对)?[\u4e00-\u9fff]{{1,8}}过敏|会(?!来|去|回|生气|不会)[\u4e00-\u9fff]{{1,8}}|不会(?!来|去|回|生气)[\u4e00-\u9fff]{{2,8}}"
    rf"|[\u4e00-\u9fff]{{0,8}}(?:一定要|总是|每次都|从来不|从来都|不敢|离不开|老是|老(?![师家人公婆大二三爷奶])|经常|每天(?:早上|晚上|下午|中午)?都|都要)[\u4e00-\u9fff]{{1,10}})"
    # 我爸爸是程序员天天加班: what someone is, then what it brings every day
    rf"(?:(?:天天|每天|经常|总是)(?!都?(?:好|很|真|特别|超|可|太))[\u4e00-\u9fff]{{1,6}})?(?:了|啦|嘛|呢|哦|呀)?$"
)
# Said of the moment, not of the person: 妈妈今天生气了, 爸爸说…, 妈妈叫我…
_TRANSIENT_ZH = re.compile(r"今天|被(?!子|窝|单)|表扬|批评|最近(?!(?:呢|啊)?(?:特别|又|开始)?(?:迷上|迷|爱上|在学|喜欢))|这几天|这两天|这阵子|昨天|刚才|刚刚|正在|等会|待会|明天|后天|说|让|叫我|叫你|生气|(?<!爱)哭了|在哭|在家|去了|回来|出差|不在")
_PERSON_EN = re.compile(rf"^(?:(?:so|and|yeah|well|oh|also|but|plus|hi|hello|hey|ok|okay),? )*(?:my|our) ({_KIN_EN}|{_OTHERS_EN})\b", re.I)
_HAVE_PERSON_EN = re.compile(rf"^(?:I have|(?:she|he) has) an? (?:half )?(?:little |big |baby |older |younger )?({_KIN_EN}|{_OTHERS_EN}) (?:named|called|whose name is) ([a-z][a-z'-]+)$", re.I)
# Someone named first, then who they are to the child or what they have (theo is my best friend at school,
# kenji has a twin sister named aiko, milo is allergic to eggs, biscuit is a golden retriever)
_NAMED_FIRST_EN = re.compile(
    rf"^([a-z][a-z'-]+)(?: is my (?:best friend|best mate|bestie|friend)\b.*| (?:has|'s got) an? (?:(?:twin |little |big |baby )?(?:sister|brother)"
    rf"|(?:pet |little |new )?(?:{_PETS_EN})) (?:named|called) [a-z][a-z'-]+| is allergic to [\w ,'-]{{2,40}}"
    r"|(?: still| always)? (?:sleeps with|wets the bed)[\w ,'-]{0,40}| has (?:asthma|diabetes|eczema|adhd|autism|epilepsy|c[o]?eliac(?: disease)?|an? [\w ]{0,20}allergy)\b[\w ,'-]{0,40}"
    r"| is an? (?:golden retriever|labrador|labradoodle|goldendoodle|cockapoo|cavapoo|poodle|spaniel|jack russell|beagle|border collie|husky"
    r"|pug|corgi|dachshund|chihuahua|shih tzu|french bulldog|bulldog|german shepherd|staffy|tabby|siamese|ragdoll))$", re.I)
_NOT_A_SUBJECT_EN = {"bluey", "bingo", "peppa", "elsa", "olaf", "spiderman", "batman", "superman", "mickey", "minnie", "pikachu",
                     "sonic", "mario", "luigi", "barbie", "moana", "shrek", "simba", "nemo", "dora", "paddington", "pooh", "stitch",
                     "it", "this", "that", "he", "she", "they", "there", "what", "who", "everyone", "everybody", "nobody", "someone",
                     "somebody", "mommy", "mom", "mum", "mummy", "dad", "daddy", "my", "your", "his", "her", "our", "the", "a", "an",
                     "i", "you", "we", "one", "each", "which", "here"}
# "i have a little sister | her name is rosie": the sister is named in the next clause
_THIS_IS_KIN_EN = re.compile(rf"^(?:(?:hi|hello) )?this is my ({_KIN_EN}) ([a-z][a-z'-]+)$", re.I)  # this is my son theo
# i have got two brothers jack and harry: both named
_TWO_KIN_EN = re.compile(r"^(?:I have (?:two|2) (brother|sister|cousin)s|my (brother|sister|cousin)s are (?:named|called)"
                         r"|my (brother|sister|cousin)s' names are) ([a-z][a-z'-]+) and ([a-z][a-z'-]+)$", re.I)
_PAIR_NAMED_EN = re.compile(rf"^(?:my|our) ({_KIN_EN}) and (?:my )?({_KIN_EN}) are (?:called|named) ([a-z][a-z'-]+) and ([a-z][a-z'-]+)$", re.I)
_HAVE_UNNAMED_EN = re.compile(rf"^I (?:have|got|'ve got|just got) an? (?:new )?(?:little |big |baby |older |younger )?({_KIN_EN})$", re.I)
# Several of a kind at once, with what holds for all of them (my cousins live in canada, my kids are allergic to eggs)
_PEOPLE_EN = re.compile(r"^(?:my|our) ((?:big |little |older |younger )?(?:brothers|sisters|cousins|grandparents|aunts|uncles|"
                        rf"kids|children|sons|daughters|parents)|(?:{_KIN_EN}) and (?:my )?(?:{_KIN_EN}|pop|pops|poppy))( (?:both |all )?(?:live in|live with|live near|work (?:at|in|as|for)|"
                        r"are allergic to|are (?:both |all )?(?:twins|\w+ years old)|go to|are (?:both |all )?from|live on)\b[\w ,'-]{1,40})$", re.I)
_PRONOUN_EN = re.compile(r"^(?:she|he|(?:her|his)(?= name(?: is|'s)\b))\b", re.I)
_FAMILY_NAME_EN = re.compile(r"^(?:'s name is|'s name's| is called| is named|'s called|'s named| name is| name's|(?: in the(?: whole)? world| at school| from school| ever)? is)\s+((?:(?:mrs|mr|ms|miss|dr|mister|missus)\.? )?[a-z][a-z'-]+)$", re.I)
# The child's class, a school just started, and where a child goes, as parents say them (in reception,
# just started kindy, goes to st marys primary): shared by what is said of someone and what is said of the child
_IN_CLASS_EN = r"in (?:reception|nursery|kindergarten|preschool|year \w+|\w+ grade)\b"
_STARTED_EN = r"started (?:reception|nursery|kindergarten|kindy|kinder|prep|preschool|school|year \w+|\w+ grade)\b"
_GOES_TO_SCHOOL_EN = r"goes to [\w' ]{0,30}(?:school|primary|preschool|kindergarten|nursery|daycare|elementary|montessori|kindy|childcare)\b"
_PREDICATE_EN = re.compile(
    rf"^(?:(?:'s| is) (?:a|an) (?:[\w-]+ ){{0,2}}(?:{_JOBS_EN}|baby|toddler|teenager|twin|newborn)\b[\w -]{{0,30}}|(?:'s| is) (?:{_JOBS_EN})$|(?:'s| is) \w+(?: and a half)? years? old|(?:'s| is) (?:actually |also |really )?(?:allergic to|in|from) [\w -]{{2,40}}"
    r"|(?:'s| is) (?:only |just |nearly |almost )?(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|twenty|\d{1,3})(?: and a half| and a quarter| and three quarters)?"
    r"|(?:'s| is) (?:really |very |so |super )?(?:good|great|bad) at [\w ]{2,30}"
    r"|(?:'s| is) (?:really |so |super |very )?(?:into|crazy about|obsessed with|mad about|fond of) [\w -]{2,30}"
    r"|(?:'s| is) (?:really |very |so |a bit |a little )?(?:shy|anxious|sensitive)\b[\w ]{0,30}"
    r"|(?:'s| is)(?: always been| been)? (?:really |very |so |a bit |a little |kind of |kinda )?(?:scared|afraid|terrified|frightened) of [\w -]{2,30}"
    r"|(?:'s| is) (?:a )?(?:really |very |so |super |bit of a |bit |a bit of a )?(?:picky|fussy) eater\b[\w ]{0,20}"
    r"|(?:'s| has) been (?:doing|learning|taking|playing|going to) [\w ]{2,30}"
    rf"| has an? (?:pet |little |new )?(?:{_PETS_EN}) (?:named|called) [a-z][\w ]{{1,30}}"
    r"|(?: only| always| never) (?:eats|drinks|sleeps|wears|watches)\b[\w ,'-]{1,40}"
    rf"|(?:'s| is) {_IN_CLASS_EN}[\w ]{{0,30}}"
    rf"|(?: just)? {_STARTED_EN}[\w ]{{0,20}}"
    r"|(?: has) (?:type \w+ )?(?:diabetes|epilepsy|adhd|autism|asthma|eczema)\b[\w ]{0,30}"
    r"|(?: has) (?:an? )?(?:severe |bad |mild |really bad )?[\w ]{0,20}allergy\b[\w ]{0,30}"
    r"|(?: gets) (?:really |so )?(?:scared|afraid) (?:of|during|when) [\w -]{2,30}|(?: gets) nightmares\b[\w ]{0,30}"
    r"|(?: still| always)?(?: needs) (?:his|her) (?:night ?light|blanket|teddy|dummy)\b[\w ,'-]{0,40}"
    rf"| {_GOES_TO_SCHOOL_EN}[\w ]{{0,20}}"
    r"|(?: just| recently)? turned (?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})(?: last \w+| this \w+)?"
    r"| just learned (?:how )?to [\w ]{2,40}"
    r"|(?:'s| is) (?:a )?(?:lactose intolerant|gluten intolerant|coeliac|celiac|vegetarian|vegan|diabetic|autistic|deaf|colou?r ?blind|left-handed)"
    r"|(?: doesn't| does not| don't| never| can't| cannot| won't| will not) [a-z]+[\w ,'-]{0,40}"
    rf"| was an? (?:{_JOBS_EN})\b[\w ,'-]{{0,30}}"
    r"| used to (?:be|work|live|teach|play|drive|fly) [\w ,'-]{1,60}| (?:moved|has moved|just moved) to (?!the |my |our |his |her |your )[\w ,'-]{2,40}"
    r"|(?: also| really| still| always| absolutely| totally| just)? (?:doesn't like|does not like|can't stand|comes from|is allergic|can|(?!says\b|wants\b|"
    r"needs\b|thinks\b|is\b|was\b)[a-z]{2,}s)\b[\w ,'-]{1,40})$",
    re.I,
)
_TRANSIENT_EN = re.compile(rf"\b(?:today|yesterday|tonight|now|right now|says|said|told|wants|is coming|is going|gonna|"
                           rf"will|was(?! an? (?:{_JOBS_EN})\b)|went|sick|mad|angry|(?<!from )home|busy|(?<!far )away|pregnant|expecting)\b", re.I)
_NOT_A_NAME_WORD = re.compile(r"(?:ful|ous|ive|ing|ed|ic|al|ble|ish|less|est)$|^(?:old|young|tall|short|big|small|fast|slow|strong|"
                              r"smart|nic|bett|clev|sweet|mean|loud|quiet|brav|great|bigg|small|dumb|high|low|light|dark)er$")  # oliver, harper are names


# What a parent tells of the child as 他/她 with no one named first: health, age, likes, habits, school
_CARE_ZH = re.compile(r"过敏|哮喘|睡觉|尿床|蛀牙|离不开|气喘|糖尿病|近视|湿疹|鼻炎|贫血|挑食|早产|在学|不会|胆小|晕车|晕船|左撇子|不耐受|迷上|不(?:能|敢)?吃|不能喝|只吃|岁|喜欢|爱|讨厌|怕|一定要|每天|总是|老是|从来|经常|"
                      r"都要|年级|幼儿园|[大中小]班")
_CARE_EN = re.compile(r"allergic|allergy|intolerant|coeliac|celiac|\bnaps\b|\bneeds (?:his|her) (?:night ?light|blanket|teddy|dummy)\b|\bgets (?:nightmares|really scared|scared)\b|(?:\bis|'s) (?:really |very |so |a bit |a little |kind of |kinda )?(?:scared|afraid|terrified|frightened) of\b"
                      r"|(?:\bis|'s) (?:crazy about|obsessed with|mad about)\b|(?:\bis|'s) always been (?:scared|afraid)\b|picky eater|fussy eater"
                      rf"|\bbeen (?:doing|learning|taking|playing|going to)\b|\bhas an? (?:pet |little |new )?(?:{_PETS_EN}) (?:named|called)\b|\bonly (?:eats|drinks)\b|\bsleeps with\b|vegetarian|vegan|diabetes|epilepsy|adhd|autism|eczema|\bwears (?:glasses|hearing aids?|braces)\b|can't stand|fond of"
                      r"|(?:\bis|'s) (?:really |very |so |a bit |a little )?(?:shy|anxious|sensitive)\b"
                      r"|\bgets (?:really |so )?(?:scared|afraid) of\b"
                      rf"|(?:\bis|'s) {_IN_CLASS_EN}"
                      rf"|\b{_STARTED_EN}"
                      rf"|\b{_GOES_TO_SCHOOL_EN}"
                      r"|\b(?:just |recently )?turned (?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|(?:\bis|'s) (?:really |so )?into\b|asthma|diabetic|autistic|(?:doesn't|does not|don't|can't|cannot|never|won't) (?:eat|drink|have)s?\b"
                      r"|(?:\bis|'s) (?:\w+ )?(?:years? old|\d+|one|two|three|four|five|six|seven|"
                      r"eight|nine|ten|eleven|twelve)\b|\b(?:likes|loves|hates|doesn't like|does not like|is scared of|is afraid of)\b"
                      r"|\b(?:always|never|every)\b|\bgrade\b|\bkindergarten\b|\bpreschool\b|\blearned to\b", re.I)


def _person_name_zh(value: str, cut: bool = False) -> str | None:
    stop = re.search(rf"今年|现在|已经|{ZH_NUM}岁|上[一二三四五六幼小初高大中]|就?住[在我]|就在", value[1:]) if cut else None
    value = value[: stop.start() + 1] if stop else value  # 豆豆今年六岁: with `cut`, the name ends there
    name = _unstutter(_TAIL_ZH.sub("", value) or value)
    if name[:1] in "我你他她" or _NOT_A_NAME_ZH.search(name) and len(name) > 3:
        return None
    return name


def _others(clause: str, writes: list[dict], context: dict) -> bool:
    """Writes about a family member or another person the clause names (我妈妈叫李娟, 我爸爸是警察,
    my grandma lives in Texas); True when the clause was about them."""
    zh = bool(HAN.search(clause))
    if not context.get("person") and not context.get("peer") and context.get("about") != "other":
        clause = (_THEIR_KIN_ZH if zh else _THEIR_KIN_EN).sub("我" if zh else r"\1my", clause, count=1)
    if zh:
        named_first = _NAMED_FIRST_ZH.match(clause)
        if (named_first and not re.match(rf"(?:{_KIN_ZH}|{_OTHERS_ZH}|宝宝|宝贝|孩子|大家|别人|人家|他们|她们|我们|你们|谁|这|那)", named_first.group(1))
                and not _CHARACTERS_ZH.match(named_first.group(1)) and not re.search(r"[我你他她它不是也都还就没的了在和跟很最]", named_first.group(1))):
            writes.append(opslib.write("fact", clause.replace("我们家", "主人家").replace("我家", "主人家")))
            return True
        if _PEER_NAMED_ZH.match(clause):
            context["peer"] = True
            return True
        m = _PERSON_ZH.search(clause)
        pronoun = None if m else _PRONOUN_ZH.search(clause)
        if not m and not pronoun:
            # a clause with no subject after one about someone else is about them too (我女儿叫米粒 今年四岁)
            if (context.get("about") != "other" or clause[:1] in "我你这那"
                    or not _PREDICATE_ZH.search(clause) and not _TRAIT_PREDICATE_ZH.search(clause)):
                return False
            pronoun = re.match("", clause)
        rest = clause[(m or pronoun).end():]
        if re.match(r"(?:都|也)叫我", rest):
            return False  # 我同学都叫我小胖: the child's own name, as 大家都叫我…
        if pronoun and pronoun.group(0) and context.get("peer"):
            return True  # 我们班的小红 | 她喜欢粉色的东西: a classmate's, not kept
        if re.match(r"(?:也)?不是", rest):  # 她不是对花生过敏 | 是对腰果过敏: what is denied is not kept
            if m and not context.get("person"):
                context["person"] = (m.group(1), "")
            return True
        relation = m.group(1) if m else None
        relation = {"妈": "妈妈", "爸": "爸爸", "妈咪": "妈妈", "爸比": "爸爸", "哥": "哥哥", "姐": "姐姐", "弟": "弟弟",
                    "妹": "妹妹"}.get(relation, relation)
        if m and rest and not _PREDICATE_ZH.search(rest) and not _FAMILY_NAME_ZH.search(rest):
            # a name set beside the person (我同学乐乐家有一只大狗, 我表姐小美会弹钢琴)
            for k in (2, 3):
                beside, after = rest[:k], rest[k:]
                if (after and _PREDICATE_ZH.search(after) and not _TRANSIENT_ZH.search(after)
                        and "我" not in re.sub(r"(?<=[在到住])我(?:们)?家", "", after)
                        and _person_name_zh(beside) and not re.match(rf"(?:{_KIN_ZH}|{_OTHERS_ZH})", beside)
                        and not re.fullmatch(_ADVERBS_ZH, beside) and not _TRANSIENT_ZH.search(beside)

                        and not re.search(r"[的是在也都很就还了会要有和跟说不没]", beside)):
                    writes.append(opslib.write("fact", f"主人的{relation}{beside}{after.replace('我们家', '主人家').replace('我', '主人')}"))
                    context["person"] = (relation, beside)
                    return True
        named = _FAMILY_NAME_ZH.search(rest)
        known = context.get("person")
        if named and not m and known and not known[1]:  # 我有一个妹妹 她叫朵朵
            relation = known[0]
        if named and relation:
            kin = bool(re.fullmatch(_KIN_ZH, relation)) and not relation.startswith("爸爸妈妈")
            # a family member's name is only the name; 孩子叫李沐阳今年四岁半 stays one fact
            name = _person_name_zh(named.group(1), cut=kin)
            if name is None:
                return False
            if "姓" in named.group(0):  # 我妈妈姓王: a surname, no name to keep as family (a teacher's, as 王老师, is not kept)
                if kin:
                    writes.append(opslib.write("fact", f"主人的{relation}姓{name}"))
                context["person"] = (relation, "")
                return True
            if kin:
                writes.append(_family(relation, name))
            else:
                writes.append(opslib.write("fact", f"主人的{relation}叫{name}"))
            context["person"] = (relation, name)
            more = rest[named.end():]
            if more[:1] in ("和", "跟"):  # 我老婆叫陈静和我儿子叫乐乐
                _others(more[1:], writes, context)
            said = named.group(1)[len(name):]  # 我儿子叫豆豆今年六岁: what is said of him after his name
            if said and _PREDICATE_ZH.search(said) and not _TRANSIENT_ZH.search(said) and "我" not in said:
                writes.append(opslib.write("fact", f"主人的{relation}{name}{said}"))
            return True
        if m and not rest and m.group(0).startswith("我"):
            context["person"] = (relation, "")
            return True
        if (m and m.group(0).startswith("我") and re.fullmatch(r"[\u4e00-\u9fff]{2,3}", rest) and _person_name_zh(rest)
                and not _PREDICATE_ZH.search(rest) and not re.search(rf"{ZH_NUM}|岁", rest)
                and not re.search(r"[的是在也都很就还了会要有和跟说叫吗呢吧]", rest)):
            context["person"] = (relation, rest)  # 我好朋友乐乐 | 他住在我家隔壁: the name is said, what of him comes next
            return True
        if (not m and (known or context.get("about") == "pet") and _TRAIT_PREDICATE_ZH.search(rest)
                and not _TRANSIENT_ZH.search(rest) and "我" not in rest):
            context["trait"] = rest  # 我同桌叫何雨萱 | 她可爱哭了: joins what was said of her
            return True
        # 住在我家隔壁: the child's home as a landmark, not a deed involving the child
        if (not _PREDICATE_ZH.search(rest) or _TRANSIENT_ZH.search(rest) or "你" in rest
                or "我" in re.sub(r"(?<=[在到住])我(?:们)?家|我们班的?", "", rest)):
            about = bool(m and rest and not m.group(0).startswith(("宝宝", "孩子")) and m.group(0)[:1] == "我")
            if about and not context.get("person"):
                context["person"] = (relation, "")  # 我妹妹不叫朵朵 | 她叫多多: the 她 is still the sister
            # 他有点挑食 | 不爱吃蔬菜: what follows a bare 他/她 is still theirs, not the child's
            return about or bool(pronoun and pronoun.group(0))
        if m:
            owner = "" if relation in ("宝宝", "孩子") else "主人的"  # 我们家孩子晕车: the child, not the child's child
            subject = owner + relation
            if owner and not (known and known[0] == relation):
                context["person"] = (relation, "")  # 我爸爸是警察 会开车: the next clause is still his
            elif not owner:
                context["child"] = relation  # 孩子五岁 | 喜欢跳舞: a parent goes on about the child
        elif known:
            subject = f"主人的{known[0]}{known[1]}"
        elif context.get("child") and not pronoun.group(0) and _CARE_ZH.search(rest):
            subject = context["child"]
        elif not pronoun.group(0) or not _CARE_ZH.search(rest):
            # a bare 他/她 with no one named before it: only what a parent tells of the child (他有哮喘,
            # 她特别喜欢跳舞, 他今年六岁); 他会飞, 他住在森林里 are a story's or a cartoon's
            return bool(pronoun.group(0))
        else:
            subject = pronoun.group(0)
            context["child"] = subject  # 他快七岁了 | 还在上幼儿园大班: what follows is still the child's
        writes.append(opslib.write("fact", subject + rest.replace("我们家", "主人家").replace("我们班", "主人的班").replace("我", "主人")))
        return True
    if re.match(rf"^[a-z]+'s (?:little |big |baby )?(?:{_KIN_EN}|{_OTHERS_EN})\b", clause, re.I) and not clause.lower().startswith(("it's", "that's", "he's", "she's", "what's", "there's")):
        context["peer"] = True  # peppa's little brother is george | he loves his dinosaur: someone else's family
        return True
    if context.get("peer") and re.match(r"(?:he|she)\b", clause, re.I):
        return True
    m = _NAMED_FIRST_EN.search(clause)
    if m and m.group(1).lower() not in _NOT_A_NAME_EN | _NOT_A_SUBJECT_EN:
        name, said = _title(m.group(1)), re.sub(r"\s+(?:so|and|but|because)$", "", clause[m.end(1):].strip())
        friend = re.match(r"is my (best friend|best mate|bestie|friend)\b(.*)$", said, re.I)
        said = f"The user's {friend.group(1).lower()} is {name}{friend.group(2)}" if friend else f"{name} {said}"
        writes.append(opslib.write("fact", said))
        context["peer"] = True  # milo is allergic to eggs | so he cant have the cake: the moment's, not kept
        return True
    m = _THIS_IS_KIN_EN.search(clause)
    if m and m.group(2).lower() not in _NOT_A_NAME_EN:
        relation, name = m.group(1).lower().split()[-1], _title(m.group(2))
        writes.append(_family(relation, name))
        context["person"] = (relation, name)
        return True
    m = _TWO_KIN_EN.search(clause)
    if m and not {m.group(4).lower(), m.group(5).lower()} & _NOT_A_NAME_EN:
        relation = (m.group(1) or m.group(2) or m.group(3)).lower()
        for name in (_title(m.group(4)), _title(m.group(5))):
            writes.append(_family(relation, name))
        return True
    m = _PAIR_NAMED_EN.search(clause)  # my mom and dad are called kate and tom
    if m and not {m.group(3).lower(), m.group(4).lower()} & _NOT_A_NAME_EN:
        for relation, name in ((m.group(1), m.group(3)), (m.group(2), m.group(4))):
            writes.append(_family(relation.lower().split()[-1], _title(name)))
        return True
    m = _HAVE_UNNAMED_EN.search(clause)
    if m:
        context["person"] = (m.group(1).lower().split()[-1], "")
        return True
    m = _HAVE_PERSON_EN.search(clause)
    if m:
        relation, name = m.group(1).lower().split()[-1], _title(m.group(2))
        if m.group(2).lower() in _NOT_A_NAME_EN:
            return True
        if re.fullmatch(_KIN_EN, relation):
            writes.append(_family(relation, name))
        else:
            writes.append(opslib.write("fact", f"The user has a {m.group(1).lower()} called {name}"))
        context["person"] = (relation, name)
        return True
    m = _PEOPLE_EN.search(clause)
    if m and not _TRANSIENT_EN.search(m.group(2)):
        writes.append(opslib.write("fact", f"The user's {m.group(1).lower()}{m.group(2)}"))
        return True
    m = _PERSON_EN.search(clause)
    pronoun = None if m else _PRONOUN_EN.search(clause)
    if not m and not pronoun:
        return False
    rest = clause[(m or pronoun).end():]
    if pronoun and not rest.startswith(("'s", " ")):
        return False
    if pronoun and rest.startswith(" ") and not rest.startswith((" is", " has", " name is", " name's", " likes", " loves", " hates", " works",
                                                                  " lives", " goes", " can", " doesn't", " just turned",
                                                                  " turned", " absolutely", " really", " totally", " plays",
                                                                  " wears", " does", " gets", " just started", " started",
                                                                  " sleeps", " eats", " only", " always", " never", " won't",
                                                                  " adores", " needs", " don't", " just learned", " still")):
        return False
    known = context.get("person")
    # "my sister isn't called anna | she's called hannah": a he/she right after an unnamed relation is that relation
    unnamed = pronoun and known and not known[1]
    named = _FAMILY_NAME_EN.search(rest) if m or unnamed else None
    if named:
        word = named.group(1)
        lowered = word.lower()
        if rest.lstrip().startswith("is ") and not rest.startswith("'s"):
            # "my daughter is ruby" names her; "my dad is tall" does not
            if (lowered in _NOT_A_NAME_EN or _NOT_A_NAME_WORD.search(lowered) and not word[:1].isupper()
                    or en_number(lowered) is not None or re.fullmatch(_JOBS_EN, lowered)):
                named = None
        if named:
            relation = m.group(1).lower() if m else known[0]
            name = _title(word)
            if re.fullmatch(_KIN_EN, relation):
                bare = relation.split()[-1]
                writes.append(_family(bare, name))
            else:
                writes.append(opslib.write("fact", f"The user's {relation} is called {name}"))
            context["person"] = (relation, name)
            return True
    # a name set beside the person (my friend emma likes unicorns, my sister lily is nine)
    beside = re.match(r" ([a-z][a-z'-]+)(?=( .+)$)", rest, re.I) if m and not _PREDICATE_EN.search(rest) else None
    if (beside and _PREDICATE_EN.search(beside.group(2)) and beside.group(1).lower() not in _NOT_A_NAME_EN
            and en_number(beside.group(1)) is None and not _NOT_A_NAME_WORD.search(beside.group(1).lower())):
        context["person"] = (m.group(1).lower(), _title(beside.group(1)))
        if re.fullmatch(_KIN_EN, m.group(1).lower()):  # my daughter kiara is six: her name is kept too
            bare, name = m.group(1).lower().split()[-1], _title(beside.group(1))
            writes.append(_family(bare, name))
        m, rest = None, beside.group(2)
        pronoun = re.match("", rest)
    if re.search(r"\b(?:into|obsessed with|crazy about|mad about|loves)\b", rest):
        rest = re.sub(r" (?:right now|at the moment|these days)$", "", rest)  # she's obsessed with frozen right now
    if _TRANSIENT_EN.search(rest) or not _PREDICATE_EN.search(rest) or re.search(r"(?<!lives )(?<!live )\bwith (?:me|us)\b", rest, re.I):
        if m and not known:
            context["person"] = (m.group(1).lower(), "")
        if re.search(r"\b(?:a |an )?(?:super ?hero|robot|monster|giant|wizard|dragon|dinosaur|ninja|alien)\b", rest, re.I):
            context["peer"] = True  # my dad is a superhero | he can lift the car: a story about him
        return bool(m)
    if pronoun and context.get("about") == "pet":
        return True  # my dog's name is biscuit | he's three: the pet's, not a person's
    known = context.get("person")
    if m:
        subject = "The user's " + m.group(1).lower()
        if not known:
            context["person"] = (m.group(1).lower(), "")  # my big sister is fourteen | she plays the violin
    elif known:
        subject = "The user's " + " ".join(w for w in known if w)
    elif not _CARE_EN.search(rest):
        return True  # "he can fly", "she lives in a castle": no one named, a story's, not the child's
    else:
        subject = pronoun.group(0).split("'")[0].capitalize()
    verb_rest = rest[2:] if rest.startswith("'s") else rest[1:] if rest.startswith(" ") else rest
    if rest.startswith("'s"):
        verb_rest = ("has" if re.match(r"'s (?:always |never |just )?been\b", rest) else "is") + rest[2:]  # he's been doing karate: has
    for pattern, replacement in _EN_OBJECT:
        verb_rest = pattern.sub(replacement, verb_rest)
    verb_rest = re.sub(r"\s+(?:so|and|but|or|because)$", "", verb_rest.strip())  # …night light on or | she won't…
    writes.append(opslib.write("fact", f"{subject} {verb_rest}"))
    return True


def _clause_writes(clause: str, categories: set[str], context: dict) -> list[dict]:
    writes: list[dict] = []
    if re.match(r"不是我(?!们)", clause):
        return writes  # 不是我喜欢恐龙 | 是我弟弟喜欢恐龙: who it is not, nothing of the child
    if context.get("about") == "self" and re.match(r"(?:也|还|就|最)?(?:不喜欢|不爱|讨厌|喜欢|爱吃|最怕|害怕)", clause):
        clause = "我" + clause  # 我喜欢吃辣的 | 不喜欢吃甜的: the child still speaks of themselves
    if _others(clause, writes, context):
        context["about"] = "other"
        return writes
    if re.match(r"我|I\b|I'm\b", clause, re.I):
        context["about"] = "self"
    if (_HEALTH_ZH.search(clause) or _HEALTH_EN.search(clause)) and not re.search(r"不是|没有|\bnot\b|n't\b", clause, re.I):
        return [opslib.write("fact", third_person(clause))]
    if _PET_NAME_ZH.search(clause) or _PET_NAME_EN.search(clause) or _PET_EN.search(clause) or _PET_ZH.search(clause):
        context["about"] = "pet"
    if context.get("about") == "other" and not re.match(r"我|I\b|I'm\b", clause, re.I):
        return writes  # the rest of what was said of someone else is not the user's
    _identity(clause, writes, context.get("greeted", False) or context.get("introduced", False)
              or context.get("alone", False) and bool(HAN.search(clause)), context.get("now"), context.get("introduced", False))
    _preferences(clause, writes)
    if not writes and "decision" in categories and (_DECISION_ZH.search(clause) or _DECISION_EN.search(clause)):
        writes.append(opslib.write("fact", third_person(clause)))
    return writes


# --- schedules -------------------------------------------------------------------------------------

# Something to do at a time: a remind-me, or a plan (明天要去奶奶家, 周六上午十点我要去上舞蹈课,
# on saturday we're going to the aquarium). Weather and feelings are not plans.
_TODO_MARK = re.compile(r"\bdon'?t let (?:me|him|her|us) forget\b|\btell (?:me|him|her|us) to\b|\bwake [a-z]+ up\b|提醒|记得|别忘了|叫我|叫醒我|叫(?:醒)?(?:他|她|孩子|宝宝)(?=起床|起来)|帮我记|待办|让(?:他|她|孩子|宝宝)|\bremind\b|\bdon'?t forget\b|\bremember to\b"
                        r"|\bwake me\b|\btodo\b|\bmake sure\b", re.I)
_PLAN_ZH = re.compile(r"要|得|需要|去|有|带|参加|练|[\u4e00-\u9fff]{1,4}课(?=是|在)|复诊|复查|体检|疫苗|抽血|看牙|学(?=[\u4e00-\u9fff])|放(?:寒|暑)?假|改到|改成|改在|挪到|推到|[送接](?=孩子|宝宝|他|她|女儿|儿子)|来接|接我|过生日|结婚|大寿|过寿|满月|上[\u4e00-\u9fff]{0,4}课|考试|交|过来|来我家|回|开(?!心)|举行|举办|演出|表演|比赛"
                      r"|是[\u4e00-\u9fff]{0,10}(?:会|派对|聚会|婚礼|典礼|比赛|演出|的生日|义卖|活动|开放日)$")
# the child's own birthday is a date to keep, not a plan; a party, or someone else's birthday on a day, is one
_BIRTHDAY_WORD = re.compile(r"生日(?!会|派对|聚会)|(?<!'s )(?:(?<=his )|(?<=her )|(?<!s ))\bbirthday\b(?! party)", re.I)
_EVENT_EN = (r"game|lesson|lessons|class|practice|appointment|party|recital|concert|test|exam|trip|match|meeting|playdate|birthday|"
             r"sleepover|checkup|check-up|tournament|competition|performance|rehearsal|day|show-and-tell|visit|play|field trip|wedding|"
             r"conference|assembly|fair|sale|parade|ceremony|camp|workshop|fundraiser|disco|sports day")
# "i go to karate" is a plan when it repeats (every saturday morning i go to karate); said once it is a habit
_GOES_EN = re.compile(r"\b(?:i|we|they|me and my \w+) (?:go to|do|get (?:my|our|their))\b|\b(?:she|he) (?:goes to|does|gets (?:his|her))\b", re.I)
_PLAN_EN = re.compile(r"\b(?:i|we|she|he|they|the kids|the children) (?:have|has|got|'ve got|need to|have to|will|'ll|can go|get to go)\b|\b(?:i'm|we're|were|she's|he's|i am|we are|she is|he is|they are) "
                      r"(?:going|having|getting|visiting|starting)\b|\bgonna\b|\bgoing to\b|\bcomes? over\b|\bis coming\b"
                      r"|\bthere'?s\b|\bi have\b|\bwe have\b|\bis (?:on|at)\b|^(?:today|tomorrow|tonight) is\b"
                      r"|^(?:\w+'?s )?(?:doctor'?s?|dentist'?s?|vet'?s?|hospital|eye|hair) appointment\b"
                      r"|\b(?:i|we|she|he|they) (?:start|starts|begin|begins)\b"
                      rf"|^(?:on )?(?:{'|'.join(MONTHS_EN)}) (?:the )?\w+ is (?:(?:my|our|the|his|her) )?[\w' ]{{0,20}}\b(?:{_EVENT_EN})\b"
                      r"|^(?:my|our|her|his) \w+(?: \w+)? (?:has|have|is going|will)\b"
                      r"|\b(?:i'm|we're|were|she's|he's|they're|i am|we are|she is|he is|they are) (?:watching|seeing|playing|meeting|taking|flying|driving|leaving|"
                      r"moving|travell?ing|celebrating|baking|camping|hiking|performing|singing|dancing|sleeping over|staying)\b"
                      # winter break starts on december 18th, it's ruby's birthday party
                      r"|\b(?:break|holidays?|vacation|term|school|camp|half term) (?:starts|begins|ends|finishes)\b"
                      # the appointment got moved to monday, my cousins are visiting, dad gets back friday, she's coming
                      r"|\b(?:got |was |has been |is )?(?:moved|changed|pushed|switched) to\b|\b(?:are|is|'s|'re) (?:visiting|coming|flying|arriving|spending)\b"
                      r"|\b(?:is|are|'s|'re) picking (?:me|us|him|her|them) up\b|\bvideo calls?\b|\bfacetimes?\b"
                      r"|\bgets? back\b|\bcomes? (?:home|back)\b|\barriv(?:es|ing)\b|\b(?:is|are|'s) getting married\b"
                      r"|\b(?:we're|were|we are|i'm|i am|she's|he's|they're) (?:picking|dropping|collecting|meeting)\b"
                      r"|\b(?:needs|has to take|takes|gets) (?:his|her|my|their) [\w ]{0,20}(?:pill|medicine|medication|inhaler|vitamins?|drops|antibiotics?)\b"
                      r"|\b(?:is|are) doing (?:a|the|our|their) \w+|\bpicks? (?:him|her|them|me|us) up\b"
                      rf"|^(?:on )?(?:{'|'.join(MONTHS_EN)}) \d{{1,2}}\w* (?:we|i) (?:fly|go|leave|travel|drive)\b"
                      # next month on the 3rd is my school concert, my recital is december 12th at 3
                      rf"|\bis (?:my|our|the|his|her|a) [\w' ]{{0,20}}\b(?:{_EVENT_EN})$"
                      rf"|\b(?:{_EVENT_EN}) (?:is|are) (?:on )?(?:{'|'.join(MONTHS_EN)})\b"
                      rf"|\bit'?s (?:[\w']+ ){{0,3}}(?:{_EVENT_EN})\b"
                      rf"|^(?:my|our|her|his|the) [\w' ]{{0,20}}\b(?:{_EVENT_EN}) (?:is|are) (?:this|next|on|at|tomorrow|today|tonight|{'|'.join(WEEKDAYS_EN)})\b"
                      r"|^the day after tomorrow is\b"
                      # chess club is every tuesday at 3:15, swimming lessons are on tuesday, tuesday for the dentist at 2
                      rf"|\b(?:{_EVENT_EN}|club|therapy|lessons?|training|dentist|doctor) (?:is|are) (?:on|at|every|this|next|tomorrow"
                      rf"|{'|'.join(WEEKDAYS_EN)})\b"
                      r"|\bfor (?:the|my|his|her) (?:dentist|doctor|vet|check-?up|appointment|haircut|flu shot|jab)\b"
                      rf"|\bfor (?:the|my|his|her) [\w ]{{0,20}}\b(?:{_EVENT_EN})\b"
                      rf"|^[\w' ]{{0,30}}\b(?:{_EVENT_EN}|club|therapy|training) (?:every|on|this|next|{'|'.join(WEEKDAYS_EN)})\b"
                      rf"|^[a-z]+ has (?:a |an |his |her |the )?[\w' ]{{0,20}}\b(?:{_EVENT_EN}|{_ACTIVITIES_EN}|club|therapy|training|lessons?|dentist|doctor)\b"
                      # next friday is my school play: a day, then what happens on it
                      rf"|^(?:next |this coming |this |on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?: at [\w:]+)? is (?:(?:my|our|the|his|her) )?(?![\w' ]*\b(?:best|favou?rite|worst|last)\b)[\w' ]{{0,20}}\b(?:{_EVENT_EN})\b", re.I)
_NAMED_DATE_EN = re.compile(r"\b(?:christmas|halloween|new year'?s|thanksgiving|easter|valentine'?s)\b|"
                            rf"\b(?:{'|'.join(MONTHS_EN)}) \d|\bthe \d{{1,2}}(?:st|nd|rd|th) of\b", re.I)
_MAYBE = re.compile(r"可能|也许|说不定|还没定|不一定|每隔|\bmaybe\b|\bmight\b|\bnot sure\b|\bsome ?time\b|\bsomeday\b|\bevery other\b", re.I)
_NOT_PLANNED = re.compile(r"不(?:去|用|要去|上|来|回|参加)|不是(?:周|星期|礼拜|今天|明天|后天)|没有(?:课|安排)|\b(?:not|never)\b|n't\b", re.I)
_NOT_A_PLAN = re.compile(r"只是|才回|[吃用喝]到(?:周|星期|礼拜|下周|[今明后]天)|\buntil\b|\b(?:going to|gonna) be (?:a|an)\b|\b(?:favou?rite|best|worst) days?\b|下雨|下雪|刮风|天气|晴|阴天|冷|热|开心|高兴|\b(?:rain|snow|weather|sunny|cold|hot)\b", re.I)
_PAST = re.compile(r"昨天|前天|刚才|刚刚|上周|上个星期|去年|上次|已经|[去到玩吃过完]了|\byesterday\b|\blast (?:week|night|time|year|month)\b|\bago\b"
                   r"|\bwent\b|\bwas\b|\bdid\b|\bhad\b", re.I)
_REQUEST_ONLY = re.compile(r"^(?:你)?(?:要|记得|一定要)?(?:提醒|记得提醒|叫)(?:我|他|她|我们)(?:一下)?[哦呀啊吧哈喔]*$"
                           r"|^(?:please )?(?:remind|tell) (?:me|him|her|us)(?: please)?$", re.I)
_CLOCK_AFTER = re.compile(r"(?:是|在|时间是|时间还是|还是)?(?:早上|上午|中午|下午|晚上)?[一二两三四五六七八九十\d]{1,3}点(?:半|一刻|三刻|[一二三四五六七八九十\d]{1,3}分?)?(?:钟)?(?:到|开始|出发)?")
_CANCELLED = re.compile(r"取消|不用(?:再)?提醒|别(?:再)?提醒|\bcancel\b|\bcall off\b", re.I)
_ASKED_ONLY = re.compile(r"^(?:叫|提醒|喊)(?:我|他|她)?(?:一下|一声)?$")
_TODO_LEAD = re.compile(
    r"^(?:请|麻烦)?(?:你)?(?:要|一定要)?(?:提醒|记得提醒|记得|别忘了|帮我记一下|帮我记住|待办[：:]?)(?:我们|我|他|她|孩子|宝宝)?(?:一下)?\s*"
    r"|^(?:please )?(?:(?:remind|tell) (?:me|him|her|us)(?: to)?|don'?t forget(?: to)?|remember to|todo:?|to-do:?|make sure(?: that)?)\s+"
    r"|^让(?:他|她|孩子|宝宝)|^叫(?:醒)?(?:他|她|孩子|宝宝)(?=起)"
    r"|^(?:而是|就是|是)|^(?:我们|我|他|她|孩子|宝宝)?(?:都)?(?:需要|要|得|会|就要|准备|打算)"
    r"|^(?:i|we|she|he|they) (?:need to|have to|'ve got to|will|'ll|have|has|got)\s+|^(?:i'm|we're|were|she's|he's) (?:going to|gonna|going|having)\s+",
    re.I,
)


def _birthday_only(clause: str) -> bool:
    """A date said of a birthday is the birthday, not an appointment; a birthday party is one."""
    return bool(_BIRTHDAY_WORD.search(clause)) and not re.search(
        r"生日(?:会|派对|聚会)|birthday party|给(?!我)[\u4e00-\u9fff]{1,4}过生日|(?:爷爷|奶奶|外公|外婆|姥姥|姥爷|爸爸|妈妈|哥哥|姐姐|弟弟|妹妹"
        r"|[\u4e00-\u9fff][^\s我的他她])的生日",
        clause, re.I)  # 给奶奶过生日, 十二月十二号是我爷爷的生日: someone else's day, a plan


def _is_plan(clause: str, before: str = "") -> bool:
    """Whether a clause says something to do (its time may be in `before`, the clause said just ahead)."""
    if (_birthday_only(clause) or _AGE_ZH.search(clause) and not re.search(r"去|(?<!马)上|参加|考", clause)
            or re.search(r"\b(?:gonna|going to|will|'ll) (?:be|turn) (?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b", clause, re.I)):
        return False  # 明天就是我的生日 | 我要八岁了: an age to be reached, not a plan
    if _PAST.search(clause) and not re.search(r"明天|后天|下周|下个|\btomorrow\b|\bnext\b", clause, re.I):
        return False
    if _NOT_A_PLAN.search(clause) or _MAYBE.search(clause):
        return False  # weather and feelings are no plans; 我们周末可能去露营 is not settled
    zh = bool(HAN.search(clause))
    if zh and clause.endswith("了") and not re.search(r"要|就|明天|后天|下周|下个|改到|改成|挪到", clause):
        return False
    if _NOT_PLANNED.search(clause):
        return False  # 我明天不去幼儿园, i'm not going to school tomorrow: a plan said negated is none
    # (a parent's own child is the user: 我儿子每周四上跆拳道, my son has karate on thursdays)
    other = re.match(rf"^我的?(?!儿子|女儿|闺女)(?:{_KIN_ZH}|{_OTHERS_ZH})|^my (?!son\b|daughter\b|kid\b|child\b)(?:{_KIN_EN}|{_OTHERS_EN})\b",
                     clause, re.I)
    if (other and repeat_of(before + clause) != "none"
            and not re.search(r"我|\b(?:me|us)\b", clause[other.end():], re.I)):  # 每周六我爸爸带我去游泳 is the user's
        return False  # 我爸爸…每个周末才回来: what someone else does every week is their routine, not the user's plan
    if not zh and _GOES_EN.search(clause) and (repeat_of(before + " " + clause) in ("weekly", "monthly")
                                              or _NAMED_DATE_EN.search(before + " " + clause)):
        return True  # every saturday i go to karate, on christmas eve we go to church
    if zh and repeat_of(before + clause) in ("daily", "weekly") and CLOCK_ZH.search(before + clause) and re.search(r"[\u4e00-\u9fff]{2}$", clause):
        return True  # 每周一三五晚上七点跳绳打卡: a repeat at an hour is something to be reminded of
    if not zh and _GOES_ON_A_DAY_EN.search(clause) and _ONE_DAY_EN.search(before + " " + clause):
        return True  # tomorrow i go to the doctor, on saturday me and daddy go swimming
    return bool((_PLAN_ZH if zh else _PLAN_EN).search(clause))


# Said in the present of one coming day, something done is a plan; said without one, a habit (i go to bed at 8)
_GOES_ON_A_DAY_EN = re.compile(r"\b(?:i|we|me and (?:my )?\w+|my \w+ and (?:i|me)) (?:go|get|visit|see|fly|drive)\b", re.I)
_ONE_DAY_EN = re.compile(rf"\btomorrow\b|\bin \w+ (?:days?|weeks?)\b|\bnext (?:week|month)\b|\b(?:on|this|next) (?:{'|'.join(WEEKDAYS_EN)})\b|^(?:{'|'.join(WEEKDAYS_EN)})\b", re.I)


def _has_time(clause: str, now: datetime) -> bool:
    try:
        return parse_when(clause, now) is not None
    except ImpossibleDate:
        return True


def _todo_content(text: str) -> str:
    """What to do, without the time words and the "remind me" lead-in."""
    zh = bool(HAN.search(text))
    parts = [p for p in re.split(r"[，,]\s*", text) if p and not _REQUEST_ONLY.match(p.strip())]
    text = ("，" if zh else ", ").join(parts) or text
    body = time_words(text)
    if zh:
        body = re.sub(r"\s+", "", body)
    body = re.sub(r"\s{2,}", " ", body).strip(" ，,").rstrip("。！？!?.;；")
    for _ in range(3):
        body = _TODO_LEAD.sub("", body.strip(" ，,"))
    if zh:
        body = re.sub(r"(?:你要提醒我|提醒我|记得提醒我|别忘了提醒我)(?:们)?[哦呀啊吧]*", "", body)
        body = re.sub(r"(?:好不好|好吗|可以吗|行不行|行吗|好嘛|吗)$|[，,](?:到|开始|出发)$", "", body)  # a request's tag, not the deed
        body = re.sub(r"^(?:你)?(?:能不能|可不可以|可以|能)", "", body)  # 你可以…叫我起床吗: the asking, not the deed
        body = re.sub(r"^(?:这周|这个星期|下周)?的(?!时候)|(?:改到|改成|改在|挪到|推到)了?$|[，,]?(?:是|在|时间是)$", "", body)
        body = re.sub(r"^(?:叫|提醒|喊)(?:我|他|她)(?:(?:一下|一声)[，,]?|[，,])(?:我要)?|(?<=[\u4e00-\u9fff])那个(?=[\u4e00-\u9fff])", "", body)
        body = _TODO_LEAD.sub("", re.sub(r"^[，,\s]*(?:那天|的时候|那个)?", "", body).strip(" ，,"))
        body = _TAIL_ZH.sub("", body) if len(body) > 2 else body
    else:
        body = re.sub(r"\b(?:please )?remind (?:me|him|her|us)(?: to)?\b|\bplease\b", "", body, flags=re.I).strip(" ,")
        body = re.sub(r"^(?:the )?(?:morning|afternoon|evening|night)\s+", "", body, flags=re.I)
        body = re.sub(r"^(?:to|is|are)\s+", "", body, flags=re.I)  # "next tuesday is picture day": the day's event
        body = re.sub(r"^(?:can|could|will|would) you (?:please )?|\s+(?:is|are)$", "", body, flags=re.I)
        body = re.sub(r"^(?:(?:oh|so|actually|wait|ok|okay|well|and|also|scratch that|it's|its),? )+|\s+(?:got |was |has been )?(?:moved|changed|pushed) to$",
                      "", body, flags=re.I)
    return re.sub(r"\s{2,}", " ", body).strip(" ，,") or text


def _habit_time(clause: str) -> bool:
    """An every-day time with no clock (每天中午, every morning): when a habit happens, not a reminder."""
    return repeat_of(clause) == "daily" and not (CLOCK_ZH.search(clause) if HAN.search(clause) else CLOCK_EN.search(clause))


def _todo_spans(clauses: list[str], now: datetime) -> list[tuple[int, int, dict]]:
    """Every plan of a line in turn (明天早上九点去上游泳课 然后下午三点去奶奶家: two); a later plan with
    no day of its own is on the day of the one before it."""
    spans: list[tuple[int, int, dict]] = []
    start, day = 0, ""
    while start < len(clauses):
        span = _todo_span(clauses[start:], now, day)
        if span is None:
            break
        first, end, op = span
        spans.append((first + start, end + start, op))
        said = "".join(clauses[start + first:start + end])
        found = (DAY_ZH if HAN.search(said) else DAY_EN).search(said)
        day = found.group(0) if found else day
        start += end
    return spans


def _todo_span(clauses: list[str], now: datetime, day: str = "") -> tuple[int, int, dict] | None:
    """(first, end, schedule write) for the first clauses that say something to do and its time ("明天下午3点，
    提醒我去开会", "十二月五号是…生日 提醒我准备礼物"), or None; the other clauses keep their own writes.
    `day` is the day of a plan said before in the same line."""
    if _CANCELLED.search("".join(clauses)):
        return None  # 之前那个提醒取消吧: a reminder called off is none
    if (_MAYBE.search(" ".join(clauses)) and not any(_TODO_MARK.search(c) for c in clauses)
            or re.search(r"每隔|\bevery other\b", " ".join(clauses), re.I)):  # every other day: no repeat the device keeps
        return None  # 可能周四 也可能周五 反正下周去看电影: not settled, whichever clause says so
    remind = [i for i, c in enumerate(clauses) if _TODO_MARK.search(c)]
    timed = [i for i, c in enumerate(clauses) if not _NEGATED.match(c) and not re.match(r"^不是|^not\b", c, re.I)
             and _has_time(c, now)]
    # a plan needs a time one can be reminded at: 每天中午都要午睡 is a habit, not an appointment
    timed_plans = [i for i in timed if not _habit_time(clauses[i])]
    plans = [i for i in timed_plans if _is_plan(clauses[i])]
    # (not after a plan said negated, nor a reason: 我明天不用去学校 | 因为放假 is no plan)
    plans += [i + 1 for i in timed_plans if i + 1 < len(clauses) and i + 1 not in timed
              and not _NOT_PLANNED.search(clauses[i]) and not re.match(r"因为|所以|because\b|cause\b", clauses[i + 1], re.I)
              and _is_plan(clauses[i + 1], clauses[i])]
    if remind and timed:
        marked = sorted(set(remind) | set(timed))
    elif plans:
        marked = sorted(set(plans) | {i for i in timed if i + 1 in plans or i - 1 in plans})
        # a new time after a plan already said opens the next plan (…去上游泳课 | 下午三点去奶奶家)
        for k, i in enumerate(marked):
            if (k and i in timed and any(p in plans for p in marked[:k]) and any(p in timed for p in marked[:k])
                    and not _CLOCK_AFTER.fullmatch(clauses[i])):  # 钢琴课改到周五了 | 时间还是下午四点半: the same plan's hour
                marked = marked[:k]
                break
    else:
        return None
    first, end = marked[0], marked[-1] + 1
    while end < len(clauses) and _CLOCK_AFTER.fullmatch(clauses[end]):
        end += 1  # 每周二下午都有篮球课 | 是五点: the hour said after the plan
    if first >= 2 and _RETRACT.match(clauses[first - 1]) and first - 2 in timed:
        first -= 2  # 明天下午三点 | 不对 | 是四点去游泳: the corrected clause keeps the day said before
    kept = [c for c in clauses[first:end] if not re.match(r"^(?:不是|不对|not)\b|^不是", c, re.I)]
    taken_back = [k for k in range(first, end) if _RETRACT.match(clauses[k])]
    if taken_back:  # 明天下午三点 | 不对 | 是四点去游泳: the clock said before is taken back, its day stays
        before = "".join(clauses[first:taken_back[-1]])
        day = (DAY_ZH if HAN.search(before) else DAY_EN).search(before)
        kept = ([day.group(0)] if day else []) + clauses[taken_back[-1] + 1:end]
    joiner = "，" if HAN.search(clauses[first]) else ", "
    text = joiner.join(kept)
    if day and not (DAY_ZH if HAN.search(text) else DAY_EN).search(text):
        text = day + joiner + text  # 然后下午三点去奶奶家: on the day said with the plan before
    when = parse_when(text, now)
    if when is None or (when[0] < now.strftime("%Y-%m-%d %H:%M") and (not remind or when[1] == "none")):
        return None  # no time, or a plan whose hour has passed (my friend is coming over today)
    content = _todo_content(joiner.join(c for c in kept if not _birthday_only(c)) or text)
    moved = re.match(r"^(?:改到|改成|挪到|推到)", clauses[first]) if not content or content == text else None
    said_before = [c for c in clauses[:first] if not re.match(r"不是|不在", c)]
    if moved and said_before:  # 钢琴课 | 不是周三了 | 改到周四下午五点: what was moved was said before
        content = _todo_content(re.sub(r"(?:不是|不在).*$", "", said_before[-1]))
    if (not content or content == text or _ASKED_ONLY.match(content)) and end < len(clauses):
        # "明天下午3点提醒我，去开会", 两点半叫我一下 | 我要看熊出没: the deed comes next
        end += 1
        content = _todo_content(joiner.join(clauses[first:end]))
    if (not content or len(content) < 2 or content in ("还有", "然后", "还有就是", "and", "then", "is", "are")
            or re.search(r"\b(?:the|a|an|of|and|my)$", content, re.I)):  # tomorrow we have to go to the um the
        return None
    return first, end, opslib.write("schedule", content, datetime=when[0], repeat=when[1], priority=3)


# --- sentences to writes ---------------------------------------------------------------------------


def _plan_signal(sentence: str, now: datetime) -> bool:
    return any(_has_time(c, now) and _is_plan(c) for c in clauses(sentence))


def detect_high_signals(user_text: str, now: datetime | None = None) -> list[Signal]:
    """Each (sentence, category) hit in the user's words, in order."""
    now = now or datetime.now()
    found = []
    for sentence in sentences(normalise(user_text)):
        for category, pattern in PATTERNS.items():
            if pattern.search(sentence):
                found.append(Signal(category, sentence, IMPORTANCE[category]))
        if not any(s.sentence == sentence and s.category == "todo" for s in found) and _plan_signal(sentence, now):
            found.append(Signal("plan", sentence, IMPORTANCE["plan"]))
    return found


_DENIED_EN = re.compile(r"^my (name)(?: is not| isn't|'s not) \w+$|^I (?:don't|do not) live in [\w ]+$", re.I)
_RETRACT = re.compile(r"^(?:[哦啊呃哎]\s*)?(?:不对|不是|错了|说错了|我说错了|no|wait no|no wait|no no|no sorry|no actually|oops|i mean|i meant|sorry)$", re.I)
# What a bare value said after a retraction means, by the kind of memory taken back:
# my birthday is august 22nd | wait no | august 23rd, i live in boston | no | austin
_SAID_AGAIN = {"birthday": ("我的生日是", "my birthday is "), "location": ("我住在", "I live in "), "like": ("我喜欢", "I like "),
               "dislike": ("我不喜欢", "I don't like ")}


def _said_again(clause: str, retracted: list[dict], categories: set[str], context: dict) -> list[dict]:
    """The corrected value of a birthday, place or liking taken back, said bare; [] when the clause is not one."""
    if not HAN.search(clause):
        clause = re.sub(r"^(?:actually,? |no,? )?(?:it'?s |it is )?", "", clause, flags=re.I)  # no | actually it's teal
    for op in retracted:
        prefix = _SAID_AGAIN.get(op["type"])
        if prefix:
            said = prefix[0 if HAN.search(clause) else 1] + clause
            ops = [again for again in _clause_writes(said, categories, dict(context)) if again["type"] == op["type"]]
            if ops:
                return ops
    return []
_BARE_NAME_EN = re.compile(r"^([a-z][a-z'-]+)(?: with an? \w+| spelled [\w -]+)?$", re.I)
_FIXED = re.compile(r"^(?:是叫|是在|是|应该是|叫|其实是|在|it'?s|is)\s*(?!not\b|nothing\b)(?![^，。,.！？!?\s]*(?:我|住|叫|喜欢|[点号]))([^\s，。,.！？!?]{1,12})$", re.I)


def _with_value(op: dict, value: str) -> dict | None:
    """The same write with the corrected value; None when the value cannot be one (an age that is no number)."""
    if op["type"] == "age":  # 我今年五岁 不对 是六岁: the age is still digits
        said = re.sub(r"(?:周)?岁.*$|\s*(?:years? old)?$", "", value, flags=re.I)
        age = zh_number(said) if HAN.search(said) else (int(said) if said.isdigit() else en_number(said.lower()))
        return opslib.write("age", str(age)) if age and 0 < age < 130 else None
    value = (_said_once(_TAIL_ZH.sub("", value) or value) if HAN.search(value)
             else _title(value) if op["type"] in ("name", "family", "location") else value)
    named = re.search(r"叫[\u4e00-\u9fff]{1,4}$|\b(?:called|named) [a-z][a-z'-]+$", op["content"], re.I) if op["type"] == "fact" else None
    if named:  # 我家小狗叫豆豆 不对 叫豆包, my cat is called luna no wait lulu: the pet keeps its place, the name is the new one
        word = "叫" if HAN.search(named.group(0)) else named.group(0).split()[0] + " "
        return opslib.write("fact", op["content"][: named.start()] + word + value)
    if op["type"] == "family":
        return _family(op["relation"], value, op.get("closeness", 3))
    return opslib.write(op["type"], value)


# A parent introducing themselves (我是他妈妈, i'm her dad): the name they give next is theirs
_PARENT_ZH = re.compile(r"^我是(?:孩子他(?=爸|妈)|他|她|孩子|宝宝|(?:这|那)?(?:几|两|三)?个?孩子的|[\u4e00-\u9fff]{1,3}的)(妈妈|爸爸|妈|爸|奶奶|爷爷|外婆|外公|姥姥|姥爷)$")
_PARENT_EN = re.compile(r"^(?:(?:hi|hello|hey)(?: there)?,? (?:sweetheart |sweetie |kids |everyone )?)?(?:i'm|i am|this is|it's|its) (?:his|her|their|the|the kids'?|\w+'s|\w+) "
                        r"(mom|mommy|mum|mother|dad|daddy|father|grandma|grandpa|nana|granny|grandad)(?: ([a-z][a-z'-]+))?$", re.I)


# What a role does next in play: an intention said right after claiming the role
_ACTS_IN_PLAY = re.compile(r"^我(?:要|来|会|马上|现在)(?!去上班|上班)|^(?:and )?i'?m (?:gonna|going to)\b|^(?:and )?i(?:'ll| will)\b"
                           r"|^(?:and )?you'?re under arrest\b|^(?:and )?(?:hands up|freeze)\b", re.I)


def _asks_back(said: list[str]) -> bool:
    """我家住在成都你去过成都吗: a statement, then a question to the companion; only the question goes
    (…你还记得吧 asks back what came before: all of it is a question)."""
    return (len(said) > 1 and said[-1].startswith("你") and "记得" not in said[-1] and said[0].startswith("我")
            and not asks(said[0]))


# Two or three of a kind, then each one's name in turn: 我有两个姐姐一个叫大美一个叫小美, 我家有两只猫一只叫花花
# 一只叫黑黑, i have two brothers one is named max and one is named ben, i got two sisters their names are mia and zoe
_IN_TURN_ZH = re.compile(
    r"^我(?:们)?(?:家)?(?:有|养了|养着|养)(?:两|三|2|3)(?:个|只|条|位|头)(?:小)?([\u4e00-\u9fff]{1,3}?)(?:是双胞胎|都是[\u4e00-\u9fff]{1,4})?"
    r"(?:一个|一只|一条|一位|一头|老大|大的)叫([\u4e00-\u9fff]{1,4}?|[A-Za-z][A-Za-z'-]{1,15})"
    r"(?:一个|一只|一条|一位|一头|另一个|另一只|另一条|老二|小的)(?:叫)([\u4e00-\u9fff]{1,4}|[A-Za-z][A-Za-z'-]{1,15})$")
_IN_TURN_EN = re.compile(
    r"^(?:i|we) (?:have|got|'ve got|have got) (?:two|three|2|3) (?:big |little |older |younger )?(brothers|sisters|dogs|cats|fish|hamsters|bunnies|rabbits|cousins|puppies|kittens)"
    r"(?: (?:one is|one's) (?:named|called) ([a-z][a-z'-]+) and (?:one|the other(?: one)?) is (?:named|called) ([a-z][a-z'-]+)"
    r"| (?:their|whose) names are ([a-z][a-z'-]+) and ([a-z][a-z'-]+)| (?:named|called) ([a-z][a-z'-]+) and ([a-z][a-z'-]+))$", re.I)


def _named_in_turn(said: str) -> list[dict] | None:
    m = _IN_TURN_ZH.match(said)
    if m:
        kind, names = m.group(1), [_TAIL_ZH.sub("", n) or n if HAN.match(n) else _title(n) for n in m.group(2, 3)]
        if re.fullmatch(_KIN_ZH, kind):
            return [_family(kind, n) for n in names]
        return [opslib.write("fact", third_person(said))]
    m = _IN_TURN_EN.match(said)
    if not m:
        return None
    kind, names = m.group(1).lower(), [_title(n) for n in m.groups()[1:] if n]
    if names[0].lower() in _NOT_A_NAME_EN or names[1].lower() in _NOT_A_NAME_EN:
        return None
    if kind in ("brothers", "sisters", "cousins"):
        return [_family(kind[:-1], n) for n in names]
    return [opslib.write("fact", third_person(said))]


# 能提醒我明天带水壶吗, 你可以明天早上六点半叫我起床吗: a request put as a question still asks for the reminder
# (不是 什么时候提醒我, 几点叫我起床: those ask when)
_ASKS_FOR_A_REMINDER = re.compile(r"^(?!.*(?:什么|几点|哪|谁|\bwhen\b|\bwhat time\b)).*(?:提醒|叫(?:醒)?(?:我|他|她)起床|叫醒(?:我|他|她)"
                                  r"|\b(?:remind|wake (?:me|him|her) up)\b)", re.I)


def _asks_for_a_reminder(sentence: str) -> bool:
    """A request put as a question, for a time said (你能每天提醒孩子睡觉吗 asks what the companion can do)."""
    return bool(_ASKS_FOR_A_REMINDER.search(sentence)) and bool(
        CLOCK_ZH.search(sentence) or CLOCK_EN.search(sentence)
        or re.search(r"今天|明天|后天|(?:周|星期|礼拜)[一二三四五六日天]|[\d一二三四五六七八九十]{1,3}[号日]"
                     rf"|\b(?:today|tonight|tomorrow|(?:on )?(?:{'|'.join(WEEKDAYS_EN)}))\b", sentence, re.I))


def sentence_writes(sentence: str, categories: set[str], now: datetime, context: dict | None = None) -> list[dict]:
    """The `write` ops one sentence turns into, given the signal categories it hit.
    ImpossibleDate when it asks for a reminder on a day that does not exist."""
    context = {} if context is None else context
    said = clauses(sentence)
    if (asks_all(sentence) or QUESTION_END.search(sentence)) and not _asks_for_a_reminder(sentence):
        said = said[:-1] if _asks_back(said) else []
    context["greeted"] = context.get("greeted", False) or bool(_GREETING_ZH.search(sentence))
    context["alone"] = len(said) == 1
    context["now"] = now
    context["introduced"] = bool(_INTRO.search(sentence))
    parts = [c for c in sure(said) if not asks(c)]
    if not parts:
        return []  # a question, whatever words it holds (你记得我妈妈的名字不)
    framing = frames(parts)
    in_turn = None if any(framing) else _named_in_turn("".join(parts).replace(" ", "") if HAN.search(sentence) else " ".join(parts))
    if in_turn:
        return in_turn
    # 我好想明天去游乐园: a wish, not a plan
    todos = [span for span in (_todo_spans(parts, now) if categories & {"todo", "plan"} else [])
             if not {"wish", "secret"} & set(framing[span[0]:span[1]])]
    writes: list[dict] = []
    previous: list[dict] = []
    retracted: list[dict] = []
    for i, clause in enumerate(parts):
        todo = next((span for span in todos if span[0] <= i < span[1]), None)
        if todo is not None:
            if i == todo[0]:
                writes.append(todo[2])
            if re.search(r"生日|\bbirthday\b", clause, re.I):
                writes.extend(op for op in _clause_writes(clause, categories, context) if op["type"] == "birthday")
            continue
        if framing[i] and not (framing[i] == "reported" and (_HEALTH_ZH.search(clause) or _HEALTH_EN.search(clause))):
            continue  # someone else's words, a wish, a secret; a health fact passed on is still kept
        if _RETRACT.match(clause):  # 我妈妈叫王丽 不对 是王莉: what came before is taken back
            retracted = [op for op in previous if op in writes] or retracted  # no | i mean | max: one retraction
            writes = [op for op in writes if op not in retracted]
            continue
        if clause.startswith("是我") and i and _RETRACT.match(parts[i - 1]):
            clause = clause[1:]  # 我住在南京 不是 | 是我奶奶住在南京: what follows is said afresh
        elif clause.startswith("是") and i > 1 and not retracted and _RETRACT.match(parts[i - 1]):
            # 我生日是一月 | 不对 | 是二月三号: nothing was kept of the first try; the subject is said again
            subject = re.match(r"^([\u4e00-\u9fff]{1,6}?)是", parts[i - 2])
            clause = subject.group(1) + clause if subject else clause
        elif i and re.match(r"[它他她]?叫|在", clause) and re.search("不叫|不在", parts[i - 1]):
            # 我爸爸不叫李刚 | 叫李钢, 我家小狗 | 不叫豆豆 | 它叫豆包, 我家 | 不在无锡 | 在常州: still the one said before
            owner = re.split("不叫|不在", parts[i - 1])[0] or (parts[i - 2] if i > 1 else "")
            clause = owner + re.sub("^[它他她]", "", clause)
        elif clause.startswith("是") and i and not previous and not _RETRACT.match(parts[i - 1]):
            before = parts[i - 1]
            if _NEGATED.search(before):
                # 我的生日 | 不是五月四号 | 是五月十四号: the subject said before the denial
                subject = "我" if before.startswith("我") else parts[i - 2] if i > 1 and before.startswith("不是") else ""
                clause = subject + clause[1:] if _clause_writes(subject + clause[1:], categories, dict(context)) else subject + clause
            else:
                clause = before + clause
        elif i and not previous and not framing[i - 1] and _TOPIC_FIRST_ZH.match(parts[i - 1] + clause):
            clause = parts[i - 1] + clause  # 草莓 | 我最爱吃了: the thing was said first
        denied = _DENIED_EN.match(parts[i - 1]) if i else None
        if denied and _FIXED.match(clause):  # "my name is not jack" | "it's jake"
            retracted = [{"type": "name" if denied.group(1) else "location"}]
        if retracted and re.match("[是叫]", clause):
            said = next((op.get("name") or op["content"] for op in retracted if op["type"] in ("name", "family")), "")
            clause = clause[0] + spelled_name(clause[1:], len(said))  # 是思淇三点水的淇: the new name, explained
        moved = re.match(rf"^(?:那|那个|她|他)是我的?({_KIN_ZH})$", clause) if retracted else None
        if moved and any(op["type"] == "family" for op in retracted):  # 我奶奶叫王秀兰 | 不对 | 那是我外婆: her relation was wrong
            ops = [_family(moved.group(1), op["name"]) for op in retracted if op["type"] == "family"]
            writes.extend(op for op in ops if op not in writes)
            retracted, previous = [], ops
            continue
        fixed = _FIXED.match(clause)
        if (not fixed and not HAN.search(clause) and any(op["type"] in ("name", "family") or op["type"] == "fact"
                                                         and re.search(r"\b(?:called|named) \w+$", op["content"]) for op in retracted)):
            fixed = _BARE_NAME_EN.match(clause)  # my name is sophie | no wait | sofia with an f
        after = parts[i + 1] if i + 1 < len(parts) else ""
        if (_ROLE_ZH.search(clause) or _ROLE_EN.search(clause)) and _ACTS_IN_PLAY.match(after):
            break  # 我是警察 | 我要抓坏人, i'm a police officer | i'm gonna arrest you: a role in play from here on
        parent = _PARENT_ZH.match(clause) or _PARENT_EN.match(clause)
        if parent:
            context["speaker"] = parent.group(1).lower()
            said = [op for op in writes if op["type"] == "name"]
            if said and parent.re is _PARENT_EN:  # hi im jess | im her mom: the name was the mother's
                relation = {"mommy": "mom", "mum": "mom", "daddy": "dad"}.get(context["speaker"], context["speaker"])
                writes[writes.index(said[-1])] = _family(relation, said[-1]["content"])
            named = parent.group(2) if parent.re is _PARENT_EN else None
            if named and named.lower() not in _NOT_A_NAME_EN and not re.search(r"ing$|^(?:here|again|speaking)$", named, re.I):
                # hi this is poppys mum gemma: the mother's name
                relation = {"mommy": "mom", "mum": "mom", "daddy": "dad"}.get(context["speaker"], context["speaker"])
                writes.append(_family(relation, _title(named)))
            continue
        if retracted and fixed and re.search(r"的[\u4e00-\u9fff]$", fixed.group(1)):
            # 我叫欣欣 开心的心 不对 是欣欣向荣的欣: a character explained again, the name stands
            writes.extend(op for op in retracted if op not in writes)
            retracted = []
            continue
        pet_name = _PET_CALLED.match(clause) if context.get("about") == "pet" else None
        if pet_name and previous and previous[-1]["type"] == "fact" and previous[-1] in writes:
            # 我有一只小狗 | 它叫旺财, we have a cat | she's called luna: the pet just told of gets its name
            said = previous[-1]
            named = opslib.write("fact", said["content"] + ("，叫" if HAN.search(clause) else ", called ") + _title(next(g for g in pet_name.groups() if g)))
            writes[writes.index(said)] = named
            previous = [named]
            continue
        more_of_pet = _pet_more(clause) if context.get("about") == "pet" else None
        if more_of_pet and previous and previous[-1]["type"] == "fact" and previous[-1] in writes:
            # 我家猫叫煤球 | 它可胖了, we have a dog named biscuit | he's a golden retriever: one fact of the pet
            previous = [_joined(writes, previous[-1], more_of_pet)]
            continue
        if retracted and fixed:
            ops = [fixed_op for fixed_op in (_with_value(op, fixed.group(1)) for op in retracted) if fixed_op]
            retracted = []
        else:
            ops = _clause_writes(clause, categories, context)
            if not ops and retracted:
                ops = _said_again(clause, retracted, categories, context)
                retracted = [] if ops else retracted
        if context.get("speaker"):  # 我是他妈妈 | 我叫林芳: the mother's name
            relation = {"妈": "妈妈", "爸": "爸爸", "mommy": "mom", "mum": "mom", "daddy": "dad"}.get(
                context["speaker"], context["speaker"])
            ops = [_family(relation, op["content"]) if op["type"] == "name" else op for op in ops]
        # 我最讨厌的就是打针 | 还有吃药: one more thing of the same kind
        more = re.match(r"^(?:还有|也有)([\u4e00-\u9fff]{1,8})$", clause)
        if not ops and more and previous and all(op["type"] in ("like", "dislike") for op in previous):
            ops = [opslib.write(previous[-1]["type"], item) for item in _items(more.group(1), True)]
        # "i like dogs but not cats": the negated tail of a liking is a dislike ("football not rugby" only prefers)
        m = re.match(r"^not (.{2,30})$", clause, re.I)
        if (not ops and m and previous and all(op["type"] == "like" for op in previous)
                and re.search(rf"\bbut {re.escape(clause)}", sentence, re.I)):
            ops = [opslib.write("dislike", item) for item in _items(m.group(1), False)]
        trait = context.pop("trait", None)
        if trait and previous and previous[-1]["type"] == "fact" and previous[-1] in writes:
            ops = [_joined(writes, previous[-1], trait)]  # 我同桌叫何雨萱 | 她可爱哭了: one fact of her
        elif trait and context.get("person"):
            ops = [opslib.write("fact", "主人的" + "".join(context["person"]) + trait)]  # 我爷爷叫刘长海 | 下棋可厉害了
        previous = ops or previous
        for op in ops:
            if op not in writes:
                writes.append(op)
    if writes:
        return writes
    zh = bool(HAN.search(sentence))
    if "important" in categories and _IMPORTANT.search(sentence):
        key = _IMPORTANT.sub("", sentence.rstrip("。！!.")).strip()
        return [opslib.write("fact", ("重要：" if zh else "Important: ") + third_person(key, subject=False))]
    if "todo" in categories and re.search(r"^(?:你)?(?:要)?(?:别忘了|记得要?|帮我记)|\bdon'?t forget\b|\bremember to\b", sentence, re.I):
        return [opslib.write("fact", ("待办：" if zh else "To do: ") + _todo_content(sentence))]
    # a correction note says both what was wrong and what is right (不是X，而是Y; I meant X, not Y)
    if "correction" in categories and re.search(r"不是[^，。,.！？!?]+[，,]\s*(?:而)?是|\bI meant\b.*\bnot\b", sentence, re.I):
        return [opslib.write("fact", ("更正：" if zh else "Correction: ") + third_person(sentence.rstrip("。.!！"), subject=False))]
    return []


def _joined(writes: list[dict], said: dict, more: str) -> dict:
    """The fact `said`, in its place in `writes`, with `more` of its subject added."""
    joined = opslib.write("fact", said["content"] + ("，" if HAN.search(more) else ", ") + more)
    writes[writes.index(said)] = joined
    return joined


_PET_MORE_EN = re.compile(rf"^(?:he|she|it)(?:'s| is) (?:(?:a|an) (?:{_PETS_EN})\b.*|(?:really |very |super )?(?:old|fat|fluffy|big|tiny|small|\w+ years old)\b.*"
                          r"|(?:like |only |almost |nearly )?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
                          r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)\b.*)$"
                          r"|^(?:he|she|it) (?:loves|likes|eats|sleeps|chases|hates|barks|sings|talks)\b.*$", re.I)


def _pet_more(clause: str) -> str | None:
    """What is said of a pet just named, as 它…/he…/she… (它可胖了, he's a golden retriever); None when it is not."""
    if HAN.search(clause):
        rest = re.match(r"^它(?:们)?(.+)$", clause)
        if (rest and (_PREDICATE_ZH.search(rest.group(1)) or _TRAIT_PREDICATE_ZH.search(rest.group(1)))
                and not _TRANSIENT_ZH.search(rest.group(1)) and "我" not in rest.group(1)):
            return rest.group(1)
        return None
    return clause if _PET_MORE_EN.match(clause) else None


_PET_CALLED = re.compile(r"^(?:它|他|她)?(?:的)?(?:名字|小名)?(?:叫|名叫|就叫)([\u4e00-\u9fff]{1,4}?)[啦呀哦呢吧]?$"
                         r"|^(?:(?:and )?(?:its|his|her) name is|(?:and )?(?:it|he|she)(?:'s| is) (?:called|named)) ([a-z][a-z'-]+)$", re.I)


# Several weekdays said at once (每周二和周四, 周一三五, every tuesday and thursday): one plan per day.
_DAY_LIST_ZH = re.compile(r"((?:每个?|这个?|下个?)?(?:周|星期|礼拜))([一二三四五六日天])"
                          r"((?:(?:和|跟|、|还有|，|,)?(?:周|星期|礼拜)[一二三四五六日天]|(?:和|跟|、|还有|，|,)[一二三四五六日天]"
                          r"|[一二三四五六日](?![点时岁个十年月号次分块]))+)")
_DATE_LIST_ZH = re.compile(r"(每个?月)([一二三四五六七八九十\d]{1,3}[号日])(?:和|跟|、|还有)([一二三四五六七八九十\d]{1,3}[号日])")
_DAY_RANGE_ZH = re.compile(r"(?:每个?)?(?:周|星期|礼拜)([一二三四五六日])(?:到|至)(?:周|星期|礼拜)?([一二三四五六日])")
_WEEKDAY_ORDER = "一二三四五六日"
_DAYS_EN = "|".join(WEEKDAYS_EN)
_CLOCK_ZH_SAID = r"(?:早上|上午|中午|下午|晚上)?[一二两三四五六七八九十\d]{1,3}点(?:半|一刻|三刻|[一二三四五六七八九十\d]{1,3}分?)?"
_TWO_CLOCKS_ZH = re.compile(rf"({_CLOCK_ZH_SAID})(?:和|跟|还有|、)({_CLOCK_ZH_SAID})")
_TWO_CLOCKS_EN = re.compile(r"\b(at \d{1,2}(?::\d\d)? ?(?:am|pm)) and (?:at )?(\d{1,2}(?::\d\d)? ?(?:am|pm))\b", re.I)
_DAY_RANGE_EN = re.compile(rf"\b(?:every |on |from )?(?:({_DAYS_EN}) (?:through|thru|to|till|until) ({_DAYS_EN})\b"
                           r"|(?:every |on )(?:weekday|school day)s?\b|^(?:weekdays|school days)\b)", re.I)
_DAY_LIST_EN = re.compile(rf"\b((?:every |on |each )?)({_DAYS_EN})(s?)((?:,? (?:and |& |or )?(?:{_DAYS_EN})s?\b)+)", re.I)


def each_day(sentence: str) -> list[str]:
    """The sentence once per weekday it lists, or as it is when it lists none."""
    both = re.search(r"(?:每个?)?周末(?:的)?两天", sentence)  # 周末两天都有画画课: Saturday and Sunday, each week
    if both:
        return [sentence[:both.start()] + day + sentence[both.end():] for day in ("每周六", "每周日")]
    sentence = re.sub(r"(?:每个?)?工作日", "周一到周五", sentence)  # 工作日: Monday to Friday
    span = _DAY_RANGE_ZH.search(sentence)  # 周一到周五: every day between, each week (每天 inside it is each of them)
    if span:
        first, last = (_WEEKDAY_ORDER.index(span.group(i)) for i in (1, 2))
        if first < last:
            rest = re.sub(r"^每天", "", sentence[span.end():])
            return [sentence[:span.start()] + "每周" + _WEEKDAY_ORDER[d] + rest for d in range(first, last + 1)]
    clocks = _TWO_CLOCKS_ZH.search(sentence) or _TWO_CLOCKS_EN.search(sentence)  # 每天早上八点和晚上八点…, at 8 am and 8 pm
    if clocks:
        return [sentence[:clocks.start()] + clock + sentence[clocks.end():] for clock in clocks.group(1, 2)]
    span = _DAY_RANGE_EN.search(sentence)  # monday through friday, on weekdays: every day between, each week
    if span:
        order = [d.lower() for d in WEEKDAYS_EN]
        first, last = (0, 4) if not span.group(1) else (order.index(span.group(1).lower()), order.index(span.group(2).lower()))
        if first < last:
            return [sentence[:span.start()] + "every " + order[d] + sentence[span.end():] for d in range(first, last + 1)]
    dates = _DATE_LIST_ZH.search(sentence)
    if dates:
        return [sentence[:dates.start()] + dates.group(1) + day + sentence[dates.end():] for day in (dates.group(2), dates.group(3))]
    m = _DAY_LIST_ZH.search(sentence)
    if m:
        days = [m.group(2)] + re.findall(r"[一二三四五六日天]", m.group(3))
        pieces = [m.group(1) + d for d in dict.fromkeys("日" if d == "天" else d for d in days)]
    else:
        m = _DAY_LIST_EN.search(sentence)
        if not m:
            return [sentence]
        days = [m.group(2)] + re.findall(rf"\b(?:{_DAYS_EN})", m.group(4), re.I)
        pieces = [m.group(1) + d + m.group(3) for d in dict.fromkeys(d.lower() for d in days)]
    if len(pieces) < 2:
        return [sentence]
    return [sentence[:m.start()] + piece + sentence[m.end():] for piece in pieces]


_SILLY_NAME = re.compile(r"大便|便便|粑粑|屁|尿|鼻屎|臭臭|\b(?:poo|poop|poopy|poopoo|fart|farty|butt|butthead|booger|stinky|pee|wee|bum)\b", re.I)
_ONE_VALUE = ("name", "age", "gender", "birthday")  # a location may be two: born in one place, living in another


def fast_channel(user_text: str, now: datetime) -> tuple[list[Signal], list[dict]]:
    """Signals and their de-duplicated `write` ops; questions, pretend play and hypotheticals write
    nothing, and a sentence naming an impossible date writes nothing and carries the `problem` to
    tell the user."""
    signals = detect_high_signals(user_text, now)
    told = before_make_believe(normalise(user_text))
    writes: list[dict] = []
    by_sentence: dict[str, list[Signal]] = {}
    for signal in signals:
        by_sentence.setdefault(signal.sentence, []).append(signal)
    context: dict = {}
    for sentence in (each for said in sentences(told) for each in each_day(said)):
        if (QUESTION_END.search(sentence) and not _asks_for_a_reminder(sentence)
                and not _asks_back(clauses(sentence))):
            continue  # "你需要休息吗？" asks; it states nothing to store
        hits = by_sentence.get(sentence) or [s for s in signals if sentence in s.sentence]
        try:
            ops = sentence_writes(sentence, {s.category for s in hits} | {"plan"}, now, context)
        except ImpossibleDate as exc:
            for signal in hits:
                signal.problem = str(exc)
            continue
        for op in ops:
            if op not in writes:
                writes.append(op)
    # i'm five but i'm almost six: the age coming up, said after "but", does not correct the age said
    # 我叫大便 嘻嘻, my name is poopy pants: a joke, not a name
    writes = [op for op in writes if not (op["type"] in ("name", "family") and _SILLY_NAME.search(op.get("name") or op["content"]))]
    ages = [op for op in writes if op["type"] == "age"]
    if len(ages) > 1 and re.search(r"\bbut (?:i'm|i am) (?:almost|nearly)\b", told, re.I):
        writes.remove(ages[-1])
    # one child has one age, name, birthday…: said twice in one line, the later one corrects the
    # earlier (i'm four and a half no wait i'm five)
    last = {op["type"]: op for op in writes if op["type"] in _ONE_VALUE}
    return signals, [op for op in writes if op["type"] not in _ONE_VALUE or last[op["type"]] is op]
