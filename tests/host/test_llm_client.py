"""The OpenAI-compatible client against a real HTTP server: fences, chatter, truncation, errors."""

import asyncio
import time

import pytest
from pydantic import BaseModel
from xzmem.config import LLMConfig
from xzmem.llm import LLMClient, LLMError, LLMOff, extract_json


class Answer(BaseModel):
    memories: list[dict]


def run(coro):
    return asyncio.run(coro)


def test_sends_model_temperature_and_key(fake_llm, llm_config):
    fake_llm.reply('{"memories": []}')
    reply = run(LLMClient(llm_config).complete_json("系统", "用户", Answer))
    assert reply.data.memories == []
    request = fake_llm.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "fake-model"
    assert request["body"]["temperature"] == 0.1
    assert request["body"]["messages"][0] == {"role": "system", "content": "系统"}
    assert request["headers"]["authorization"] == "Bearer test-key"


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"memories": [{"a": 1}]}\n```',
        'Here is the result:\n{"memories": [{"a": 1}]}\nLet me know if you need more.',
        '<think>用户说了 {很多}</think>\n```\n{"memories": [{"a": 1}]}\n```',
        '好的，提取结果如下：{"memories": [{"a": 1}]}。',
    ],
)
def test_json_is_found_in_fences_and_chatter(fake_llm, llm_config, text):
    fake_llm.reply(text)
    reply = run(LLMClient(llm_config).complete_json("s", "u", Answer))
    assert reply.data.memories == [{"a": 1}]
    assert reply.raw == text


def test_truncated_json_is_an_error_with_the_raw_text(fake_llm, llm_config):
    truncated = '{"memories": [{"content": "用户喜欢猫"}, {"content": "用户住'
    fake_llm.reply(truncated)
    with pytest.raises(LLMError) as caught:
        run(LLMClient(llm_config).complete_json("s", "u", Answer))
    assert "not JSON" in str(caught.value)
    assert caught.value.raw == truncated


def test_nested_object_of_a_truncated_reply_is_not_taken_for_the_answer():
    with pytest.raises(ValueError):
        extract_json('[{"key": "mem_a", "action": "del"}, {"key": "mem_b", "act')


def test_wrong_field_type_names_the_field(fake_llm, llm_config):
    fake_llm.reply('{"memories": "none"}')
    with pytest.raises(LLMError) as caught:
        run(LLMClient(llm_config).complete_json("s", "u", Answer))
    assert "memories" in str(caught.value)
    assert caught.value.raw == '{"memories": "none"}'


def test_http_500_is_retried_then_reported(fake_llm, llm_config):
    fake_llm.reply(status=500)
    fake_llm.reply('{"memories": []}')
    reply = run(LLMClient(llm_config).complete_json("s", "u", Answer))
    assert reply.data.memories == []
    assert len(fake_llm.requests) == 2

    fake_llm.reply(status=500)
    fake_llm.reply(status=500)
    with pytest.raises(LLMError) as caught:
        run(LLMClient(llm_config).complete_json("s", "u", Answer))
    assert "HTTP 500" in str(caught.value)
    assert len(fake_llm.requests) == 4


def test_timeout_is_bounded(fake_llm):
    cfg = LLMConfig(base_url=fake_llm.base_url, api_key="k", model="m", timeout=0.3, max_retries=0)
    fake_llm.reply('{"memories": []}', delay=2.0)
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        run(LLMClient(cfg).complete_json("s", "u", Answer))
    assert "timed out" in str(caught.value)
    assert time.monotonic() - started < 1.5


def test_unreachable_server_is_an_error_not_a_crash():
    cfg = LLMConfig(base_url="http://127.0.0.1:9/v1", model="m", timeout=0.5, max_retries=0)
    with pytest.raises(LLMError) as caught:
        run(LLMClient(cfg).chat("s", "u"))
    assert "cannot reach" in str(caught.value)


def test_no_llm_configured_is_off():
    client = LLMClient(LLMConfig())
    assert not client.enabled
    with pytest.raises(LLMOff):
        run(client.chat("s", "u"))


def test_local_server_needs_no_key(fake_llm):
    cfg = LLMConfig(base_url=fake_llm.base_url, model="qwen2.5:7b")
    assert cfg.enabled
    fake_llm.reply("[]")
    text, _ = run(LLMClient(cfg).chat("s", "u"))
    assert text == "[]"
