"""The provider called exactly as xiaozhi-esp32-server 0.9.6 calls it, by two devices at once.

The server builds one memory provider object for all its connections and calls `init_memory` again
at every connection (core/connection.py). Two children talk at the same time, each with a memory
device of their own (two `xzmem sim` processes): each child's prompt and memory device must hold only
their own memories, read back from both devices. The server's temporary few-shot lines are in every
dialogue, as the server puts them there.
"""

import asyncio
import json
import os

import pytest
from simdevice import TOKEN, SimDevice
from xiaozhi_server_tree import Message, Server, fewshot, integrate, make_server_tree
from xzmem.device.client import DeviceClient

pytestmark = pytest.mark.timeout(240)

KID_A, KID_B = "aa:bb:cc:dd:ee:0a", "aa:bb:cc:dd:ee:0b"
EXTRACT = "记忆提取器"


def user(text):
    # The ASR turn as the server stores it: JSON with the words in "content".
    return Message("user", json.dumps({"content": text, "emotion": "neutral", "language": "zh"}, ensure_ascii=False))


class CountingLLM:
    """The server's LLM object (`response(session_id, dialogue)`); counts the prompts it gets."""

    def __init__(self):
        self.prompts = []

    def response(self, session_id, dialogue):
        self.prompts.append(dialogue[0]["content"])
        yield '{"memories": []}' if EXTRACT in dialogue[0]["content"] else "[]"


async def overview(url, **args):
    async with DeviceClient(url) as client:
        return await client.memory(action="read", **args)


def interactions(url):
    return asyncio.run(overview(url, type="coins"))["items"][0]["interactions"]


@pytest.fixture
def server(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    env["XZMEM_CONFIG"] = str(tmp_path / "none.toml")
    root = tmp_path / "xiaozhi-esp32-server"
    server_dir = make_server_tree(root)
    done = integrate(root, env=env)
    assert done.returncode == 0, done.stderr
    running = Server(server_dir)
    yield running
    running.close()


def test_two_children_talking_at_once_keep_their_own_memories(tmp_path, server, monkeypatch):
    monkeypatch.setenv("XZMEM_CONFIG", str(tmp_path / "none.toml"))
    with SimDevice(tmp_path / "dev_a") as dev_a, SimDevice(tmp_path / "dev_b") as dev_b:
        provider = server.create_provider({"type": "xzmem", "data": str(tmp_path / "host"), "devices": {
            KID_A: {"device": dev_a.url.split("?")[0], "token": TOKEN},
            KID_B: {"device": dev_b.url.split("?")[0], "token": TOKEN}}})
        llm_a, llm_b = CountingLLM(), CountingLLM()
        # A connects, then B: B's init_memory is the last one the shared provider saw.
        conn_a = server.open(provider, KID_A, llm_a)
        conn_b = server.open(provider, KID_B, llm_b)
        for conn in (conn_a, conn_b):
            conn.dialogue += [Message("system", "你是小智。"), *fewshot()]
        conn_a.dialogue += [user("我叫李雷，我喜欢踢足球"), Message("assistant", "你好李雷！"),
                            user("我家的猫叫咪咪"), Message("assistant", "咪咪真可爱。")]
        first_a = server.ask(conn_a, "我叫什么？")
        conn_b.dialogue += [user("我叫韩梅梅，我喜欢画画"), Message("assistant", "你好韩梅梅！")]
        first_b = server.ask(conn_b, "我喜欢什么？")
        # Both conversations end together: two save threads at once.
        conn_a.save_and_close()
        conn_b.save_and_close()
        conn_a.wait_saved()
        conn_b.wait_saved()
        read_a, read_b = asyncio.run(overview(dev_a.url)), asyncio.run(overview(dev_b.url))
        # Next time, B connects first and A last; each asks.
        again_b = server.open(provider, KID_B, llm_b)
        again_a = server.open(provider, KID_A, llm_a)
        prompt_b = server.ask(again_b, "我叫什么名字？")
        prompt_a = server.ask(again_a, "我叫什么名字？")
        for conn in (again_a, again_b):
            conn.save_and_close()  # a conversation of no real turn: nothing runs, nothing counts
            conn.wait_saved()
        count_a, count_b = interactions(dev_a.url), interactions(dev_b.url)
    assert "韩梅梅" not in first_a and "李雷" not in first_b
    assert read_a["profile"]["name"] == "李雷" and read_a["preferences"]["likes"] == ["踢足球"]
    assert read_b["profile"]["name"] == "韩梅梅" and read_b["preferences"]["likes"] == ["画画"]
    for word in ("韩梅梅", "画画"):
        assert word not in json.dumps(read_a, ensure_ascii=False)
    for word in ("李雷", "踢足球", "咪咪"):
        assert word not in json.dumps(read_b, ensure_ascii=False)
    assert "李雷" in prompt_a and "踢足球" in prompt_a
    assert "韩梅梅" in prompt_b and "画画" in prompt_b
    for word in ("韩梅梅", "画画"):
        assert word not in prompt_a
    for word in ("李雷", "踢足球", "咪咪"):
        assert word not in prompt_b
    # One real conversation each: one interaction counted; the few-shot-only ones count nothing.
    assert count_a == 1 and count_b == 1
    # The few-shot lines never reached an LLM prompt as the child's words.
    for prompt in llm_a.prompts + llm_b.prompts:
        assert "给我讲个故事吧" not in prompt and "拜拜" not in prompt
    assert all("韩梅梅" not in p for p in llm_a.prompts) and all("李雷" not in p for p in llm_b.prompts)


def test_a_conversation_of_only_the_servers_few_shot_lines_runs_no_llm_and_counts_nothing(tmp_path, server,
                                                                                        monkeypatch):
    monkeypatch.setenv("XZMEM_CONFIG", str(tmp_path / "none.toml"))
    with SimDevice(tmp_path / "dev") as dev:
        provider = server.create_provider({"type": "xzmem", "data": str(tmp_path / "host"),
                                           "device": dev.url.split("?")[0], "token": TOKEN})
        llm = CountingLLM()
        for _ in range(3):  # three idle closes
            conn = server.open(provider, KID_A, llm)
            conn.dialogue = [Message("system", "你是小智。"), *fewshot()]
            conn.save_and_close()
            conn.wait_saved()
        read = asyncio.run(overview(dev.url))
        count = interactions(dev.url)
    assert llm.prompts == []
    assert count == 0
    assert read["profile"] == {}


def test_a_call_from_no_connection_gets_no_memory_and_saves_nothing(tmp_path, server, monkeypatch, caplog):
    monkeypatch.setenv("XZMEM_CONFIG", str(tmp_path / "none.toml"))
    with SimDevice(tmp_path / "dev") as dev:
        provider = server.create_provider({"type": "xzmem", "data": str(tmp_path / "host"),
                                           "device": dev.url.split("?")[0], "token": TOKEN})
        conn = server.open(provider, KID_A)
        conn.dialogue = [user("我叫李雷"), Message("assistant", "你好李雷！")]
        conn.save_and_close()
        conn.wait_saved()
        assert "李雷" in server.ask(server.open(provider, KID_A), "我叫什么？")
        # The provider called by something that is not a connection: init_memory said KID_A last,
        # but that is no proof of who is asking.
        caplog.set_level("WARNING", logger="xzmem.xiaozhi")
        answer = asyncio.run_coroutine_threadsafe(provider.query_memory("我叫什么？"), server.loop).result(30)
        asyncio.run(provider.save_memory([user("我叫韩梅梅"), Message("assistant", "好的")], "s-x"))
        # A connection with no device id (a client that sent no Device-Id header).
        nameless = server.open(provider, None)
        nameless_answer = server.ask(nameless, "我叫什么？")
        read = asyncio.run(overview(dev.url))
        count = interactions(dev.url)
    assert answer == "" and nameless_answer == ""
    assert read["profile"]["name"] == "李雷" and count == 1
    said = [r.getMessage() for r in caplog.records]
    assert any("query_memory: no server connection" in m for m in said)
    assert any("save_memory: no server connection" in m for m in said)
    assert any("device id is unusable" in m for m in said)


class ReflectingLLM(CountingLLM):
    """Also answers reflection, with the seed's default soul state code 0110."""

    def response(self, session_id, dialogue):
        if "反思模块" in dialogue[0]["content"]:
            self.prompts.append(dialogue[0]["content"])
            yield json.dumps({"soul_state_code": "0110", "feedback_data": {
                "useful_memory_ids": [], "merge_groups": [],
                "new_memories": {"knowledge": [], "skill": [], "emotional": [], "event": []}}})
            return
        yield from super().response(session_id, dialogue)


def test_the_prompt_shows_the_childs_mood_in_words_never_reflections_code(tmp_path, server, monkeypatch):
    monkeypatch.setenv("XZMEM_CONFIG", str(tmp_path / "none.toml"))

    async def set_mood(url):
        async with DeviceClient(url) as client:
            await client.memory(action="write", type="mood", content="开心")

    with SimDevice(tmp_path / "dev") as dev:
        asyncio.run(set_mood(dev.url))
        provider = server.create_provider({"type": "xzmem", "data": str(tmp_path / "host"),
                                           "device": dev.url.split("?")[0], "token": TOKEN})
        llm = ReflectingLLM()
        conn = server.open(provider, KID_A, llm)
        conn.dialogue = [user("我今天考试得了一百分"), Message("assistant", "太棒了！")]
        conn.save_and_close()
        conn.wait_saved()
        prompt = server.ask(server.open(provider, KID_A, llm), "你好")
        affection = asyncio.run(overview(dev.url, type="coins"))["items"][0]
    assert any("反思模块" in p for p in llm.prompts)  # reflection ran
    assert affection["mood"] == "开心" and affection["soul_state_code"] == 6
    assert "心情：开心" in prompt and "0110" not in prompt
