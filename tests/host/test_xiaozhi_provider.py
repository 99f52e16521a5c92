"""The xiaozhi-esp32-server memory provider, written by `xzmem integrate` into a stand-in server tree and
driven the way the server drives it, against `xzmem sim`: with the LLM off, with the test LLM server,
with the server's own LLM object, for two talking devices, and with the memory device away."""

import asyncio
import json
import os
import threading
import time

import pytest
import yaml
from fake_llm import fake_llm  # noqa: F401
from simdevice import TOKEN, SimDevice
from xiaozhi_server_tree import Message, Server, integrate, make_server_tree
from xzmem.device.client import DeviceClient
from xzmem.device.outbox import Outbox
from xzmem.gateway.server import Gateway
from xzmem.pipelines.tokens import estimate_tokens

LILEI = [
    Message("system", "你是小智，一个可爱的陪伴机器人。<memory></memory>"),
    Message("user", json.dumps({"content": "我叫李雷，我喜欢踢足球", "emotion": "happy", "language": "zh"},
                               ensure_ascii=False)),
    Message("assistant", "你好李雷！踢足球真棒。"),
    Message("user", "我妈妈叫韩梅梅"),
    Message("assistant", None, tool_calls=[{"id": "c1"}]),
    Message("tool", '{"ok": true}', tool_call_id="c1"),
    Message("assistant", "记住啦，你妈妈叫韩梅梅。"),
]
EXTRACT, CHANGES, REFLECT = "记忆提取器", "维护陪伴型", "反思模块"


def clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("XZMEM_CONFIG", str(tmp_path / "none.toml"))
    root = tmp_path / "xiaozhi-esp32-server"
    server_dir = make_server_tree(root)
    done = integrate(root, env=dict(clean_env(), XZMEM_CONFIG=str(tmp_path / "none.toml")))
    assert done.returncode == 0, done.stderr
    running = Server(server_dir)
    yield running
    running.close()


def block(tmp_path, device: SimDevice | None, **extra) -> dict:
    out = {"type": "xzmem", "data": str(tmp_path / "host"), **extra}
    if device is not None:
        out.update(device=device.url.split("?")[0], token=TOKEN)
    return out


async def read(url: str, **args):
    async with DeviceClient(url) as client:
        return await client.memory(action="read", **args)


def interactions(url: str) -> int:
    return asyncio.run(read(url, type="coins"))["items"][0]["interactions"]


def test_llm_off_save_then_query_holds_the_name_the_like_and_the_family(tmp_path, server):
    with SimDevice(tmp_path / "dev") as device:
        provider = server.create_provider(block(tmp_path, device))
        server.connect(provider, "aa:bb:cc:dd:ee:01")
        server.save(provider, LILEI)
        overview = asyncio.run(read(device.url))
        answer = server.query(provider, "我喜欢什么？")
        count = interactions(device.url)
    assert overview["profile"]["name"] == "李雷"
    assert overview["preferences"]["likes"] == ["踢足球"]
    assert overview["family"] == [{"relation": "妈妈", "name": "韩梅梅", "closeness": 3}]
    assert count == 1  # the end_conversation op: one interaction counted, one flush
    assert "李雷" in answer and "踢足球" in answer and "韩梅梅" in answer
    assert estimate_tokens(answer) <= 600
    with Outbox(tmp_path / "host" / "outbox.sqlite3") as box:
        assert box.pending() == []


def test_a_second_role_mapped_to_a_second_simulator_gets_nothing_of_the_first(tmp_path, server):
    with SimDevice(tmp_path / "dev1") as first, SimDevice(tmp_path / "dev2") as second:
        provider = server.create_provider(block(tmp_path, first, devices={
            "aa:bb:cc:dd:ee:02": {"device": second.url.split("?")[0], "token": TOKEN}}))
        server.connect(provider, "aa:bb:cc:dd:ee:01")
        server.save(provider, LILEI)
        server.connect(provider, "aa:bb:cc:dd:ee:02")
        answer = server.query(provider, "我喜欢什么？")
        second_overview = asyncio.run(read(second.url))
        server.save(provider, [Message("user", "我叫韩梅梅"), Message("assistant", "你好！")])
        server.connect(provider, "aa:bb:cc:dd:ee:01")
        first_answer = server.query(provider, "我叫什么？")
    for word in ("李雷", "踢足球", "韩梅梅"):
        assert word not in answer
    assert second_overview["profile"] == {} and second_overview["preferences"]["likes"] == []
    assert "李雷" in first_answer and "【用户】韩梅梅" not in first_answer


def test_the_device_away_query_answers_from_the_cache_and_save_keeps_the_batches(tmp_path, server):
    data = tmp_path / "dev"
    device = SimDevice(data).start()
    provider = server.create_provider(block(tmp_path, device))
    server.connect(provider, "aa:bb:cc:dd:ee:01")
    try:
        server.save(provider, LILEI)
        server.query(provider, "你好")  # fills the cache
        device.stop()
        away = server.query(provider, "我喜欢什么？")
        server.save(provider, [Message("user", "我喜欢画画"), Message("assistant", "画画很棒！")])
        with Outbox(tmp_path / "host" / "outbox.sqlite3") as box:
            waiting = len(box.pending())
        back = SimDevice(data, port=device.port).start()
        try:
            server.save(provider, [Message("user", "我喜欢游泳"), Message("assistant", "游泳好！")])
            likes = asyncio.run(read(back.url))["preferences"]["likes"]
        finally:
            back.stop()
    finally:
        device.stop()
    assert "记忆设备暂时连不上" in away and "李雷" in away and "踢足球" in away
    assert waiting == 2  # the fast channel's batch and the end of the conversation
    assert likes == ["踢足球", "画画", "游泳"]


def test_query_never_raises_into_the_server(tmp_path, server):
    provider = server.create_provider({"type": "xzmem", "device": "ws://127.0.0.1:9/mcp", "token": TOKEN,
                                       "data": str(tmp_path / "host")})
    server.connect(provider, "aa:bb:cc:dd:ee:01")
    answer = server.query(provider, "我喜欢什么？")
    assert answer == "（记忆设备暂时连不上，以下是 （无） 缓存的记忆，可能不是最新的）"
    server.save(provider, LILEI)  # nothing raised; the batches wait
    with Outbox(tmp_path / "host" / "outbox.sqlite3") as box:
        assert [len(b.ops) for b in box.pending()] == [2, 1, 1]  # two user turns' fast writes, the end


def test_a_small_budget_is_kept(tmp_path, server):
    with SimDevice(tmp_path / "dev") as device:
        provider = server.create_provider(block(tmp_path, device, budget_tokens=60))
        server.connect(provider, "aa:bb:cc:dd:ee:01")
        server.save(provider, LILEI + [Message("user", "我喜欢" + "、".join(f"第{i}种水果" for i in range(40))),
                                       Message("assistant", "好多水果！")])
        answer = server.query(provider, "我喜欢什么？")
    assert 0 < estimate_tokens(answer) <= 60
    assert answer.startswith("【用户】李雷")


def test_with_the_test_llm_the_pipelines_run_and_their_results_reach_the_prompt(tmp_path, server, fake_llm):  # noqa: F811
    llm = {"base_url": fake_llm.base_url, "model": "fake", "api_key": "k"}
    fake_llm.reply({"memories": [{"content": "用户周六上午有足球训练", "category": "fact", "importance": 0.8,
                                  "source": "user"}]}, match=EXTRACT)
    fake_llm.reply([{"key": "mem_new1", "action": "add", "category": "preference", "payload": "李雷最喜欢的运动是踢足球",
                     "importance": 8, "source": "user"}], match=CHANGES)
    fake_llm.reply({"memories": []}, match=EXTRACT)
    fake_llm.reply("[]", match=CHANGES)
    quiet = {"soul_state_code": "0110", "feedback_data": {"useful_memory_ids": [], "merge_groups": [],
             "new_memories": {"knowledge": [], "skill": [], "emotional": [], "event": []}}}
    fake_llm.reply(quiet, match=REFLECT)
    with SimDevice(tmp_path / "dev") as device:
        provider = server.create_provider(block(tmp_path, device, llm=llm))
        server.connect(provider, "aa:bb:cc:dd:ee:01")
        server.save(provider, LILEI)
        answer = server.query(provider, "周末踢足球吗？")
        fake_llm.reply({"memories": []}, match=EXTRACT)
        fake_llm.reply("[]", match=CHANGES)
        fake_llm.reply(quiet, match=REFLECT)
        server.save(provider, [Message("user", "周末我要去踢足球"), Message("assistant", "加油！")])
        count = interactions(device.url)
    assert "【相关记忆】李雷最喜欢的运动是踢足球" in answer
    assert "用户周六上午有足球训练" in answer  # the working memory: recalled and in the summary
    reflections = [r["body"]["messages"][1]["content"] for r in fake_llm.requests
                   if REFLECT in r["body"]["messages"][0]["content"]]
    assert len(reflections) == 2 and count == 2
    # The second conversation's prompt showed the keyed memory, so its reflection is told of it.
    assert "李雷最喜欢的运动是踢足球" in reflections[1] and "李雷最喜欢的运动是踢足球" not in reflections[0]


class ServerLLM:
    """The server's LLM object: `response(session_id, dialogue)` yields the answer in pieces."""

    def __init__(self):
        self.prompts = []

    def response(self, session_id, dialogue):
        system = dialogue[0]["content"]
        self.prompts.append(system)
        if EXTRACT in system:
            text = json.dumps({"memories": [{"content": "用户在学吉他", "category": "skill", "importance": 0.6,
                                             "source": "user"}]}, ensure_ascii=False)
        elif REFLECT in system:
            text = json.dumps({"soul_state_code": "0001", "feedback_data": {"useful_memory_ids": [], "merge_groups": [],
                               "new_memories": {"knowledge": [], "skill": [], "emotional": [], "event": []}}})
        else:
            text = "[]"
        yield from (text[i:i + 7] for i in range(0, len(text), 7))


def test_without_an_llm_of_its_own_the_provider_uses_the_servers(tmp_path, server):
    server_llm = ServerLLM()
    with SimDevice(tmp_path / "dev") as device:
        provider = server.create_provider(block(tmp_path, device))
        server.connect(provider, "aa:bb:cc:dd:ee:01", llm=server_llm)
        server.save(provider, [Message("user", "我最近在学吉他，手指好疼"), Message("assistant", "坚持就会好的！")])
        answer = server.query(provider, "吉他")
    assert any(EXTRACT in p for p in server_llm.prompts) and any(REFLECT in p for p in server_llm.prompts)
    assert "用户在学吉他" in answer


def test_bad_settings_name_the_key(tmp_path, server):
    from xzmem.config import ConfigError

    with pytest.raises(ConfigError, match="Memory.xzmem.device is missing"):
        server.create_provider({"type": "xzmem", "token": TOKEN})
    with pytest.raises(ConfigError, match="unknown key api_key"):
        server.create_provider({"type": "xzmem", "device": "ws://h:1/mcp", "token": TOKEN, "api_key": "x"})
    with pytest.raises(ConfigError, match="budget_tokens"):
        server.create_provider({"type": "xzmem", "device": "ws://h:1/mcp", "token": TOKEN, "budget_tokens": 10})


def test_integrate_writes_the_module_and_selects_it_in_the_servers_config(tmp_path):
    root = tmp_path / "xiaozhi-esp32-server"
    server_dir = make_server_tree(root)
    env = dict(clean_env(), XZMEM_CONFIG=str(tmp_path / "none.toml"))
    done = integrate(root, "--device", "ws://192.168.1.50:8765/mcp", "--token", "abcdefgh", "--budget-tokens", "400",
                     env=env)
    assert done.returncode == 0, done.stderr
    module = server_dir / "core" / "providers" / "memory" / "xzmem" / "xzmem.py"
    assert f"wrote {module}" in done.stdout
    assert "class MemoryProvider(MemoryProviderBase)" in module.read_text(encoding="utf-8")
    config_file = server_dir / "data" / ".config.yaml"
    assert f"created {config_file}" in done.stdout
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    assert config["selected_module"] == {"Memory": "xzmem"}
    assert config["Memory"]["xzmem"] == {"type": "xzmem", "device": "ws://192.168.1.50:8765/mcp",
                                         "token": "abcdefgh", "budget_tokens": 400}
    again = integrate(server_dir, "--device", "ws://192.168.1.50:8765/mcp", "--token", "abcdefgh",
                      "--budget-tokens", "400", env=env)
    assert again.returncode == 0 and "up to date:" in again.stdout
    assert yaml.safe_load(config_file.read_text(encoding="utf-8")) == config


def test_integrate_refuses_a_folder_that_is_not_the_server(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    done = integrate(tmp_path / "elsewhere", env=dict(clean_env(), XZMEM_CONFIG=str(tmp_path / "none.toml")))
    assert done.returncode == 1
    assert done.stderr.startswith("xzmem: ") and "not a xiaozhi-esp32-server tree" in done.stderr
    assert done.stderr.count("\n") == 1


def test_the_provider_reaches_a_device_behind_nat_through_the_gateway(tmp_path, server):
    gateway_token, device_id = "gateway-token-42", "24:0a:c4:00:00:01"
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    gw = asyncio.run_coroutine_threadsafe(Gateway(gateway_token, port=0).start(), loop).result(10)
    device = SimDevice(tmp_path / "dev", "--endpoint", gw.device_endpoint_url(device_id),
                       "--trusted-links", "endpoint", "--device-id", device_id)
    try:
        device.start()
        deadline = time.monotonic() + 10
        while not gw.devices and time.monotonic() < deadline:
            time.sleep(0.1)
        provider = server.create_provider({"type": "xzmem", "device": gw.device_url(device_id).split("?")[0],
                                           "token": gateway_token, "data": str(tmp_path / "host")})
        server.connect(provider, "aa:bb:cc:dd:ee:01")
        server.save(provider, LILEI)
        answer = server.query(provider, "我喜欢什么？")
        time.sleep(0.5)
        left_open = sum(len(c) for c in gw.clients.values())
    finally:
        device.stop()
        asyncio.run_coroutine_threadsafe(gw.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
    assert "李雷" in answer and "踢足球" in answer and "韩梅梅" in answer
    assert left_open == 0  # every save and query closed its session with the gateway
