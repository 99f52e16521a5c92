"""Text to index terms for retrieval: jieba for Chinese, Snowball-stemmed words for English, stopwords out."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

import snowballstemmer

_RUNS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STEMMER = snowballstemmer.stemmer("english")

STOPWORDS_EN = frozenset(
    """a an the and or but if then else of to in on at by for with from as into about over after before
    is are was were be been being am do does did doing have has had having i me my mine myself you your
    yours yourself he him his she her hers it its they them their theirs we us our ours this that these
    those there here what which who whom whose when where why how all any both each few more most other
    some such no nor not only own same so than too very can will just should would could shall may might
    must s t d ll m re ve y don didn doesn isn wasn aren weren won wouldn shouldn couldn hasn haven hadn
    up down out off again further once also yeah yes oh hey hi ok okay really well like get got go going
    gonna thing things lot much one user""".split()
)
STOPWORDS_ZH = frozenset(
    """的 了 和 是 就 都 而 及 与 着 或 一个 没有 我们 你们 他们 她们 它们 我 你 他 她 它 这 那 这个 那个
    这些 那些 在 也 很 吗 呢 吧 啊 呀 嘛 哦 哈 嗯 么 什么 怎么 为什么 如何 哪 哪里 哪个 谁 几 有 被 把 给
    让 从 向 到 对 于 又 还 再 但 但是 可是 因为 所以 如果 虽然 然后 之 其 所 以 等 个 们 上 下 中 里
    会 能 要 想 说 去 来 过 得 地 自己 一下 一些 一点 已经 可以 应该 还是 就是 不是 没 不 用户 主人""".split()
)


@lru_cache(maxsize=1)
def _jieba():
    """jieba, imported on first use: its import alone takes a fifth of a second (pkg_resources)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def warm_up() -> None:
    """Load jieba's dictionary now (a second or more) rather than inside the first retrieval."""
    _jieba().initialize()


def terms(text: str) -> list[str]:
    """Index terms of `text` in order, repeats kept (term frequency matters)."""
    out = []
    for run in _RUNS.findall(text.lower()):
        if _CJK_RUN.fullmatch(run):
            out.extend(w for w in _jieba().lcut_for_search(run) if w not in STOPWORDS_ZH)
        else:
            word = run.split("'")[0]
            if word not in STOPWORDS_EN:
                out.append(_stem(word))
    return out


def index_terms(text: str) -> list[str]:
    """Terms plus each pair of neighbouring terms (word bigrams), as a (1, 2)-gram vectoriser uses:
    a shared phrase counts for more than the same words scattered."""
    words = terms(text)
    return words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]
