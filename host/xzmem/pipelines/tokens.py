"""Prompt token estimate: a documented character-based approximation (no tokenizer dependency).

CJK characters count one token each and other text one token per four characters, rounded up.
Chinese-trained tokenizers (DeepSeek, Qwen, GLM) spend 0.6-1 token per Chinese character and
about 4 characters per token of English, so this errs on the high side for the budgets we check.
"""

import math
import re

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)
