"""`xzmem chat` against a real `xzmem sim`: memories written with and without an LLM, reminders in the
chat, a device that drops out mid-chat, and the command's one-line failures."""

import asyncio
import json
import os
import subprocess
import sys
import time
import warnings
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from fake_llm import fake_llm  # noqa: F401
from simdevice import TOKEN, SimDevice
from xzmem.chat.loop import LLM_OFF_NOTE, Chat, run_chat
from xzmem.config import Config
from xzmem.db import open_db
from xzmem.device.client import DeviceClient
from xzmem.device.outbox import Outbox
from xzmem.llm import LLMClient
from xzmem.pipelines.never_remember import NeverRemember
from xzmem.pipelines.runner import Pipelines

warnings.filterwarnings("ignore", category=DeprecationWarning)

SCRIPT = ["你好！我叫王浩宇。", "我喜欢打篮球，还喜欢画画。", "我妈妈叫李娟。", "明天下午3点提醒我去开家长会。", "我叫什么？"]


def host_config(tmp_path: Path, llm_url: str | None = None) -> Config:
    cfg = Config()
    cfg.host.data_dir = str(tmp_path / "host")
    if llm_url:
        cfg.llm.base_url, cfg.llm.model, cfg.llm.max_retries, cfg.llm.timeout = llm_url, "fake", 0, 10
    return cfg


async def chat_lines(cfg: Config, url: str, lines: list[str], until=None, timeout: float = 30) -> list[str]:
    """Run a chat fed `lines`; with `until(said)`, keep it open until that holds (or `timeout`)."""
    said: list[str] = []
    send, receive = anyio.create_memory_object_stream[str](100)

    async def feed() -> None:
        for line in lines:
            await send.send(line)
        if until is not None:
            with anyio.move_on_after(timeout):
                while not until(said):
                    await anyio.sleep(0.1)
        await send.aclose()

    async with anyio.create_task_group() as tg:
        tg.start_soon(feed)
        await run_chat(cfg, url, None, receive, said.append)
    return said


async def device_read(url: str, **args) -> dict:
    async with DeviceClient(url) as client:
        return await client.memory(action="read", **args)


async def device_search(url: str, keyword: str) -> list[dict]:
    async with DeviceClient(url) as client:
        found = await client.memory(action="search", keyword=keyword)
        return found["items"] if isinstance(found, dict) else found


def test_chat_without_llm_writes_through_the_fast_channel(tmp_path):
    with SimDevice(tmp_path / "dev", "--utc-offset", str(time.localtime().tm_gmtoff)) as device:
        said = asyncio.run(chat_lines(host_config(tmp_path), device.url, SCRIPT))
        overview = asyncio.run(device_read(device.url))
        affection = asyncio.run(device_read(device.url, type="coins"))["items"][0]
    assert affection["interactions"] == 1  # the chat's end told the device: one interaction, one flush
    assert said[0] == LLM_OFF_NOTE and said.count(LLM_OFF_NOTE) == 1
    assert said[1:] == [
        "记住了：名字 王浩宇",
        "记住了：喜欢 打篮球；喜欢 画画",
        "记住了：家人 妈妈 李娟",
        f"记住了：日程 {datetime.fromordinal(datetime.now().toordinal() + 1):%Y-%m-%d} 15:00 去开家长会",
        "你叫王浩宇。",
    ]
    assert overview["profile"]["name"] == "王浩宇"
    assert overview["preferences"]["likes"] == ["打篮球", "画画"]
    assert overview["family"] == [{"relation": "妈妈", "name": "李娟", "closeness": 3}]
    assert [s["content"] for s in overview["schedules"]] == ["去开家长会"]
    with Outbox(tmp_path / "host" / "outbox.sqlite3") as box:
        assert box.pending() == []


def test_today_and_tomorrow_are_the_devices_days_not_this_computers(tmp_path):
    # The device's clock is months from this computer's and in another zone: 23:30 on 10 June there
    # (UTC+8) is still 9 June in UTC; 明天 is 11 June and 今天 10 June, on the device's day (a time today
    # already past is no reminder, so today's one is at 23:45).
    with SimDevice(tmp_path / "dev", "--start-time", "2025-06-10T23:30", "--utc-offset", "28800") as device:
        said = asyncio.run(chat_lines(host_config(tmp_path), device.url, ["明天下午3点提醒我去上钢琴课。", "今天晚上十一点四十五提醒我洗澡。"]))
        schedules = asyncio.run(device_read(device.url, type="schedule"))["items"]
    assert "记住了：日程 2025-06-11 15:00 去上钢琴课" in said
    assert sorted((s["datetime"], s["content"]) for s in schedules) == [
        ("2025-06-10 23:45", "洗澡"), ("2025-06-11 15:00", "去上钢琴课")]


def test_chat_keeps_nothing_of_a_never_remember_topic(tmp_path):
    cfg = host_config(tmp_path)
    NeverRemember(open_db(cfg.data_path)).add("篮球")
    with SimDevice(tmp_path / "dev") as device:
        said = asyncio.run(chat_lines(cfg, device.url, ["我喜欢打篮球", "我喜欢画画"]))
        overview = asyncio.run(device_read(device.url))
    assert said[1:] == ["嗯，我在听。", "记住了：喜欢 画画"]
    assert overview["preferences"]["likes"] == ["画画"]


def test_chat_with_llm_runs_the_models_memory_calls_on_the_device(tmp_path, fake_llm):  # noqa: F811
    marker = "陪伴用户聊天的小智"  # in the chat's system prompt, not in the pipelines' prompts
    fake_llm.reply(tool_calls=[("memory", {"action": "write", "type": "like", "content": "下围棋"})], match=marker)
    fake_llm.reply("好呀，我记住你喜欢下围棋了。", match=marker)
    with SimDevice(tmp_path / "dev") as device:
        asyncio.run(device_read(device.url))  # the device is up before the fake LLM is asked anything
        said = asyncio.run(chat_lines(host_config(tmp_path, fake_llm.base_url), device.url, ["最近迷上了下围棋"]))
        likes = asyncio.run(device_read(device.url, type="like"))
    assert "  · memory write like 下围棋" in said
    assert "好呀，我记住你喜欢下围棋了。" in said
    assert LLM_OFF_NOTE not in said
    assert [item["content"] for item in likes["items"]] == ["下围棋"]
    chat_requests = [r["body"] for r in fake_llm.requests if marker in json.dumps(r["body"], ensure_ascii=False)]
    first, second = chat_requests[:2]
    assert [t["function"]["name"] for t in first["tools"]] == ["memory"]
    assert "write" in first["tools"][0]["function"]["parameters"]["properties"]["action"]["enum"]
    assert '"likes": []' in first["messages"][1]["content"]  # the overview read at the start
    tool_answer = second["messages"][-1]
    assert tool_answer["role"] == "tool" and json.loads(tool_answer["content"])["result"] == "ADDED"


def test_reminders_from_the_device_appear_in_the_chat(tmp_path):
    # The device clock starts at 21:30 today and runs 1500x, so "今天晚上11点" falls due within seconds.
    start = datetime.now().strftime("%Y-%m-%dT21:30")
    offset = str(time.localtime().tm_gmtoff)
    with SimDevice(tmp_path / "dev", "--start-time", start, "--speed", "1500", "--utc-offset", offset) as device:
        said = asyncio.run(chat_lines(host_config(tmp_path), device.url, ["今天晚上11点提醒我吃药"],
                                      until=lambda said: any(s.startswith("⏰") for s in said)))
    reminders = [s for s in said if s.startswith("⏰")]
    assert reminders and "吃药" in reminders[0], said


def test_batches_wait_in_the_outbox_while_the_device_is_away(tmp_path):
    data = tmp_path / "dev"
    device = SimDevice(data).start()
    back = SimDevice(data, port=device.port)  # the same device after its power comes back
    cfg = host_config(tmp_path)
    said: list[str] = []

    async def scenario() -> None:
        with Outbox(tmp_path / "outbox.sqlite3") as box:
            chat = Chat(cfg, Pipelines(cfg, open_db(cfg.data_path), LLMClient(cfg.llm)), box, said.append)
            client = DeviceClient(device.url, reconnect_attempts=1, backoff=(0.1, 0.1), connect_timeout=2)
            async with client:
                await chat.start(client)
                await chat.turn("我叫王浩宇")
                device.kill()
                await chat.turn("我喜欢打篮球")
                assert len(box.pending(chat.device_id)) == 1
                await anyio.to_thread.run_sync(back.start)
                await chat.turn("我妈妈叫李娟")
                assert box.pending(chat.device_id) == []

    try:
        asyncio.run(scenario())
        overview = asyncio.run(device_read(device.url))
    finally:
        device.stop()
        back.stop()
    assert any(s.startswith("（设备没有收到：1 批记忆留在发件箱") for s in said), said
    assert overview["profile"]["name"] == "王浩宇"
    assert overview["preferences"]["likes"] == ["打篮球"]
    assert [m["name"] for m in overview["family"]] == ["李娟"]


def xzmem_chat(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    env.update(XZMEM_CONFIG=str(tmp_path / "none.toml"), XZMEM_DATA_DIR=str(tmp_path / "host"), PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "xzmem", "chat", *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=60)


def test_chat_command_reads_a_script_from_stdin(tmp_path):
    with SimDevice(tmp_path / "dev") as device:
        done = xzmem_chat(tmp_path, "--device", device.url.split("?")[0], "--token", TOKEN,
                          stdin="我叫王浩宇\n我叫什么？\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["你> 我叫王浩宇", "记住了：名字 王浩宇", "你> 我叫什么？", "你叫王浩宇。"]


@pytest.mark.parametrize("token, message", [("wrong-token-123", "refused the token"), (TOKEN, None)])
def test_chat_command_fails_in_one_line(tmp_path, token, message):
    with SimDevice(tmp_path / "dev") as device:
        url = device.url.split("?")[0]
        if message is None:  # nothing listens there any more
            device.stop()
            message = "device unreachable"
        done = xzmem_chat(tmp_path, "--device", url, "--token", token, stdin="我叫王浩宇\n")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("xzmem: ") and message in done.stderr, done.stderr
    assert "记住了" not in done.stdout


def test_idle_minutes_end_the_conversation_with_a_reflection(tmp_path, fake_llm):  # noqa: F811
    fake_llm.reply("好呀，围棋很有意思。", match="陪伴用户聊天的小智")
    fake_llm.reply({"soul_state_code": "0110", "feedback_data": {
        "useful_memory_ids": [], "merge_groups": [],
        "new_memories": {"knowledge": [{"judgment": "用户最近迷上了下围棋", "reasoning": "用户自己说的", "tags": ["爱好"]}],
                         "skill": [], "emotional": [], "event": []}}}, match="反思模块")
    cfg = host_config(tmp_path, fake_llm.base_url)
    cfg.chat.idle_minutes = 0.02  # 1.2 s of silence
    with SimDevice(tmp_path / "dev") as device:
        asyncio.run(device_read(device.url))
        started = time.monotonic()
        said = asyncio.run(chat_lines(cfg, device.url, ["最近迷上了下围棋"], timeout=10,
                                      until=lambda said: any("对话反思" in s for s in said)))
        waited = time.monotonic() - started
        found = asyncio.run(device_search(device.url, "围棋"))
    reflections = [r for r in fake_llm.requests if "反思模块" in json.dumps(r["body"], ensure_ascii=False)]
    assert waited < 8  # the reflection came from the silence, not from the chat's end 10 s later
    assert len(reflections) == 1  # the idle one; the chat's end found no new conversation to reflect on
    assert "最近迷上了下围棋" in json.dumps(reflections[0]["body"], ensure_ascii=False)
    assert any(s.startswith("  （对话反思：") for s in said), said
    assert [item.get("payload") for item in found if item["type"] == "keyed"] == ["用户最近迷上了下围棋"], found


def test_what_the_deep_channel_kept_reaches_the_next_turns_prompt(tmp_path, fake_llm):  # noqa: F811
    marker = "陪伴用户聊天的小智"
    fake_llm.reply("加油！", match=marker)
    fake_llm.reply({"memories": [{"content": "用户这周六有足球比赛", "category": "fact", "importance": 0.8,
                                  "source": "user"}]}, match="记忆提取器")
    fake_llm.reply("[]", match="维护陪伴型")
    fake_llm.reply("记得带护腿板。", match=marker)
    fake_llm.reply({"memories": []}, match="记忆提取器")
    fake_llm.reply("[]", match="维护陪伴型")
    with SimDevice(tmp_path / "dev") as device:
        asyncio.run(device_read(device.url))
        asyncio.run(chat_lines(host_config(tmp_path, fake_llm.base_url), device.url,
                               ["这周六我有足球比赛", "比赛要带什么？"]))
    chats = [r["body"]["messages"] for r in fake_llm.requests if marker in json.dumps(r["body"], ensure_ascii=False)]
    notes = [m["content"] for m in chats[-1] if m["role"] == "system" and "主人相关的记忆" in m["content"]]
    assert notes and "【刚聊到】用户这周六有足球比赛" in notes[-1], chats[-1]


def test_an_impossible_date_is_not_stored_and_the_user_is_told(tmp_path):
    with SimDevice(tmp_path / "dev") as device:
        said = asyncio.run(chat_lines(host_config(tmp_path), device.url, ["2月30日下午3点提醒我交房租"]))
        overview = asyncio.run(device_read(device.url))
    assert said[1] == "这个我没法记下：没有2月30日这一天。换个说法再告诉我一次吧？"
    assert overview["schedules"] == [] and overview["facts"] == []


def test_chat_in_a_terminal_edits_lines_and_keeps_a_history(tmp_path):
    """Typed in a terminal: the left arrow moves the cursor instead of landing in the name as an
    escape code, and the line is in the history file for the next chat."""
    import pty

    with SimDevice(tmp_path / "dev") as device:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
        env.update(XZMEM_CONFIG=str(tmp_path / "none.toml"), XZMEM_DATA_DIR=str(tmp_path / "host"),
                   PYTHONUNBUFFERED="1", TERM="xterm")
        leader, follower = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "xzmem", "chat", "--device", device.url.split("?")[0],
                                 "--token", TOKEN], stdin=follower, stdout=follower, stderr=follower, env=env)
        os.close(follower)
        seen = b""

        def wait_for(text: bytes) -> None:
            nonlocal seen
            deadline = time.monotonic() + 30
            while text not in seen and time.monotonic() < deadline:
                try:
                    seen += os.read(leader, 4096)
                except OSError:
                    break
            assert text in seen, seen.decode(errors="replace")

        try:
            wait_for("你> ".encode())
            os.write(leader, "我叫王明".encode() + b"\x1b[D" + "浩".encode() + b"\r")
            wait_for("记住了：名字 王浩明".encode())
            os.write(leader, b"/exit\r")
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(leader)
        overview = asyncio.run(device_read(device.url))
    assert overview["profile"]["name"] == "王浩明"
    assert "我叫王浩明" in (tmp_path / "host" / "chat_history").read_text(encoding="utf-8")


def _next(weekday: int, hour: int) -> datetime:
    """The first `weekday` at `hour`:00 after now (local time), as the chat computes a weekly repeat."""
    now = datetime.now()
    day = datetime.fromordinal(now.toordinal() + (weekday - now.weekday()) % 7).replace(hour=hour)
    return day if day > now else datetime.fromordinal(day.toordinal() + 7).replace(hour=hour)


def test_chat_without_llm_answers_what_is_asked_and_keeps_spoken_schedules(tmp_path):
    tomorrow = f"{datetime.fromordinal(datetime.now().toordinal() + 1):%Y-%m-%d} 15:00"
    wednesday = f"{_next(2, 16):%Y-%m-%d %H:%M}"
    lines = ["我叫王浩宇", "我叫什么名字", "我喜欢小狗不喜欢小猫", "我不喜欢什么", "明天下午三点去打疫苗",
             "每个星期三下午四点提醒我去学画画", "我的日程", "你还记得我什么"]
    with SimDevice(tmp_path / "dev", "--utc-offset", str(time.localtime().tm_gmtoff)) as device:
        done = xzmem_chat(tmp_path, "--device", device.url.split("?")[0], "--token", TOKEN, stdin="\n".join(lines) + "\n")
        overview = asyncio.run(device_read(device.url))
    assert done.returncode == 0, done.stderr
    replies = [line for line in done.stdout.splitlines()[1:] if not line.startswith("你> ")]
    schedules = sorted([f"{tomorrow} 去打疫苗", f"{wednesday} 去学画画（每周）"])
    assert replies == [
        "记住了：名字 王浩宇",
        "你叫王浩宇。",  # the question stored nothing: the name is still the one said
        "记住了：喜欢 小狗；不喜欢 小猫",
        "你不喜欢小猫。",
        f"记住了：日程 {tomorrow} 去打疫苗",
        f"记住了：日程 {wednesday} 去学画画（每周）",
        "接下来的日程：" + "；".join(schedules),
        "我记得：名字 王浩宇；喜欢 小狗；不喜欢 小猫；" + "；".join("日程 " + s for s in schedules),
    ]
    assert overview["profile"]["name"] == "王浩宇"
    assert overview["preferences"] == {"likes": ["小狗"], "dislikes": ["小猫"]}
    assert sorted((s["content"], s["repeat"]) for s in overview["schedules"]) == [("去学画画", "weekly"), ("去打疫苗", "none")]


def test_chat_without_llm_answers_in_english(tmp_path):
    five = datetime.now().replace(hour=17, minute=0, second=0, microsecond=0)
    five = five if five > datetime.now() else datetime.fromordinal(five.toordinal() + 1).replace(hour=17)
    lines = ["my name is lily", "i like dogs but not cats", "what don't i like", "remind me to feed the fish every day at 5pm",
             "what's my schedule", "what do you remember about me", "what's my name"]
    with SimDevice(tmp_path / "dev", "--utc-offset", str(time.localtime().tm_gmtoff)) as device:
        done = xzmem_chat(tmp_path, "--device", device.url.split("?")[0], "--token", TOKEN, stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    replies = [line for line in done.stdout.splitlines()[1:] if not line.startswith("你> ")]
    when = f"{five:%Y-%m-%d %H:%M}"
    assert replies == [
        "Got it: name Lily",
        "Got it: likes dogs; dislikes cats",
        "You don't like cats.",
        f"Got it: schedule {when} feed the fish (every day)",
        f"Coming up: {when} feed the fish (every day)",
        f"I remember: name Lily; likes dogs; dislikes cats; schedule {when} feed the fish (every day)",
        "Your name is Lily.",
    ]
