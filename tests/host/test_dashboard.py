"""The dashboard's guards (loopback, password, CSRF, Host header), its outbox fallback, and the
never-remember rule the pipelines honour. HTTP through Starlette's TestClient; the browser tests
are in test_dashboard_browser.py."""

from __future__ import annotations

import re
import socket

import anyio
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner
from xzmem.cli.app import app as cli
from xzmem.config import Config
from xzmem.dashboard.app import Dashboard, Settings
from xzmem.dashboard.security import SecurityProblem, check_listen
from xzmem.db import open_db
from xzmem.llm import LLMClient
from xzmem.pipelines.never_remember import NeverRemember
from xzmem.pipelines.runner import Pipelines

AWAY = "ws://127.0.0.1:1/mcp"  # nothing listens on port 1: the device is away
BASE = "http://127.0.0.1:8780"


def dashboard(tmp_path, password: str | None = None) -> TestClient:
    cfg = Config()
    cfg.host.data_dir = str(tmp_path / "host")
    return TestClient(Dashboard(Settings(AWAY, "token-123", cfg, password=password)).app(), base_url=BASE)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_a_change_needs_the_sessions_csrf_token_and_then_waits_in_the_outbox(tmp_path):
    client = dashboard(tmp_path)
    page = client.get("/edit")
    assert page.status_code == 200 and 'id="device-away"' in page.text
    form = {"type": "like", "content": "下棋"}
    refused = client.post("/edit/add", data=form, follow_redirects=False)
    assert refused.status_code == 403
    assert client.post("/edit/add", data=dict(form, csrf="forged"), follow_redirects=False).status_code == 403
    assert '<span id="backlog">0</span>' in client.get("/").text

    sent = client.post("/edit/add", data=dict(form, csrf=csrf_of(page.text)), follow_redirects=False)
    assert sent.status_code == 303 and sent.headers["location"] == "/edit"
    after = client.get("/edit").text
    assert "设备不在线：已存入发件箱" in after
    assert '<span id="backlog">1</span>' in after


def test_another_sites_session_cannot_post(tmp_path):
    victim = dashboard(tmp_path)
    token = csrf_of(victim.get("/edit").text)
    stranger = dashboard(tmp_path)  # a fresh cookie jar: a page elsewhere posting to the dashboard
    answer = stranger.post("/edit/add", data={"type": "like", "content": "x", "csrf": token}, follow_redirects=False)
    assert answer.status_code == 403


def test_an_unknown_host_header_is_refused(tmp_path):
    client = dashboard(tmp_path)
    assert client.get("/", headers={"host": "evil.example:8780"}).status_code == 400
    assert client.get("/", headers={"host": "localhost:8780"}).status_code == 200
    assert client.get("/login", headers={"host": "evil.example:8780"}).status_code == 400


def test_a_form_the_device_cannot_take_goes_back_to_the_page_not_elsewhere(tmp_path):
    client = dashboard(tmp_path)
    page = client.get("/edit")
    answer = client.post("/edit/add", data={"type": "schedule", "csrf": csrf_of(page.text)},
                         headers={"referer": "http://evil.example/edit"}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/edit"
    assert "cannot add a &#39;schedule&#39;" in client.get("/edit").text


def test_a_password_guards_every_page(tmp_path):
    client = dashboard(tmp_path, password="correct horse")
    first = client.get("/", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/login"
    login = client.get("/login")
    wrong = client.post("/login", data={"password": "nope", "csrf": csrf_of(login.text)})
    assert wrong.status_code == 401
    right = client.post("/login", data={"password": "correct horse", "csrf": csrf_of(login.text)}, follow_redirects=False)
    assert right.status_code == 303
    assert client.get("/").status_code == 200


def test_listening_beyond_loopback_needs_a_password(tmp_path):
    with pytest.raises(SecurityProblem):
        check_listen("0.0.0.0", None)
    check_listen("0.0.0.0", "pw")
    check_listen("127.0.0.1", None)
    result = CliRunner().invoke(
        cli, ["dashboard", "--device", AWAY, "--token", "token-123", "--listen", "0.0.0.0:0"],
        env={"XZMEM_CONFIG": str(tmp_path / "none.toml"), "XZMEM_DATA_DIR": str(tmp_path), "XZMEM_DASHBOARD_PASSWORD": ""},
    )
    assert result.exit_code == 1
    assert result.output.startswith("xzmem: --listen 0.0.0.0 is reachable from other machines")


def test_the_language_follows_the_switch(tmp_path):
    client = dashboard(tmp_path)
    assert ">概览<" in client.get("/").text
    client.get("/lang/en?next=/")
    assert ">Overview<" in client.get("/").text


def test_never_remember_rules(tmp_path):
    rules = NeverRemember(open_db(tmp_path))
    assert rules.add(" 爸爸的 工作 ") and not rules.add("爸爸的 工作")
    with pytest.raises(ValueError):
        rules.add("   ")
    assert rules.match("他说爸爸的 工作很忙") == "爸爸的 工作"
    kept, notes = rules.keep([
        {"op": "put_mem", "key": "mem_a", "payload": "用户说爸爸的 工作是医生"},
        {"op": "write", "type": "like", "content": "画画"},
    ])
    assert kept == [{"op": "write", "type": "like", "content": "画画"}] and "mem_a" not in notes[0]
    assert rules.remove("爸爸的 工作") and rules.match("爸爸的 工作") is None


def test_a_turn_on_a_never_remember_topic_reaches_no_channel(config, fake_llm):
    pipelines = Pipelines(config, open_db(config.data_path), LLMClient(config.llm))
    pipelines.never.add("游戏")
    outcome = anyio.run(pipelines.exchange, "我叫小明，我最喜欢玩游戏", "游戏很好玩呀")
    assert outcome.batches == [] and outcome.sieve.fast_ops == [] and outcome.sieve.extracted == []
    assert outcome.sieve.skipped == outcome.changes.skipped == "never remember: 游戏"
    assert fake_llm.requests == []  # neither the deep channel nor change detection asked the model
    assert len(pipelines.working) == 0
    logged = pipelines.log.recent(2)
    assert {e.parsed["skipped"] for e in logged} == {"never remember: 游戏"}


def test_a_bad_or_taken_listen_address_is_one_line(tmp_path):
    env = {"XZMEM_CONFIG": str(tmp_path / "none.toml"), "XZMEM_DATA_DIR": str(tmp_path)}
    args = ["dashboard", "--device", AWAY, "--token", "token-123", "--listen"]
    bad = CliRunner().invoke(cli, [*args, "nonsense"], env=env)
    assert bad.exit_code == 1 and bad.output.strip() == "xzmem: --listen must be HOST:PORT, got 'nonsense'"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = CliRunner().invoke(cli, [*args, f"127.0.0.1:{port}"], env=env)
    assert busy.exit_code == 1 and busy.output.startswith(f"xzmem: cannot listen on 127.0.0.1:{port}: ")
    nothing = CliRunner().invoke(cli, ["dashboard"], env=dict(env, XZMEM_DEVICE="", XZMEM_TOKEN=""))
    assert nothing.exit_code == 1 and nothing.output.startswith("xzmem: no device")


def schedule_form(client: TestClient, **fields) -> str:
    """Send the schedule form (the page's defaults, then `fields`); the page it goes back to."""
    page = client.get("/schedules")
    form = {"csrf": csrf_of(page.text), "content": "妈妈生日", "when": "once", "datetime": "2026-03-05T16:00",
            "repeat": "none", "priority": "3", "emotion": "neutral", "intensity": "3", "significance": "3"}
    form.update(fields)
    sent = client.post("/schedules/add", data=form, headers={"referer": BASE + "/schedules"}, follow_redirects=False)
    assert sent.status_code == 303 and sent.headers["location"].startswith("/schedules")
    return client.get("/schedules").text


def queued_ops(tmp_path) -> list[dict]:
    from xzmem.device.outbox import Outbox

    with Outbox(tmp_path / "host" / "outbox.sqlite3") as box:
        return [op for batch in box.pending() for op in batch.ops]


def test_the_schedule_form_takes_a_yearly_day_and_the_event_fields(tmp_path):
    client = dashboard(tmp_path)
    page = client.get("/schedules").text
    for field in ('name="month_day"', 'name="yearly_time"', 'name="event_type"', 'name="emotion"',
                  'name="intensity"', 'name="significance"', 'value="yearly"'):
        assert field in page
    after = schedule_form(client, when="yearly", month_day="3月15日", event_type="生日", emotion="happy",
                          intensity="4", significance="5")
    assert "设备不在线：已存入发件箱" in after
    after = schedule_form(client, content="结婚纪念日", when="yearly", month_day="10-01", yearly_time="19:30",
                          event_type="纪念日", emotion="touched", significance="5")
    assert queued_ops(tmp_path) == [
        {"op": "write", "type": "schedule", "content": "妈妈生日", "datetime": "03-15", "event_type": "生日",
         "emotion": "happy", "priority": 3, "intensity": 4, "significance": 5},
        {"op": "write", "type": "schedule", "content": "结婚纪念日", "datetime": "10-01 19:30", "event_type": "纪念日",
         "emotion": "touched", "priority": 3, "intensity": 3, "significance": 5},
    ]


@pytest.mark.parametrize(("fields", "said"), [
    ({"when": "yearly", "month_day": "02-30"}, "每年的日期要写成 月-日，例如 03-15；“02-30”不是日历上的一天。"),
    ({"when": "yearly", "month_day": ""}, "每年的日期要写成 月-日"),
    ({"when": "yearly", "month_day": "03-15", "yearly_time": "25:00"}, "钟点要写成 时:分，例如 08:30；“25:00”不对。"),
    ({"datetime": ""}, "请选择日程的日期和时间。"),
    ({"datetime": "明天下午"}, "日期和时间“明天下午”看不懂"),
    ({"repeat": "hourly"}, "重复方式只能选 不重复、每天、每周、每月、每年"),
    ({"significance": "9"}, "重要程度要填 1 到 5 的整数，收到的是“9”。"),
    ({"intensity": "很强"}, "心情强度要填 1 到 5 的整数"),
    ({"priority": "abc"}, "优先级要填 1 到 5 的整数，收到的是“abc”。"),
    ({"event_type": "一个非常非常长的类型"}, "类型最多 16 个字节（大约 5 个汉字）"),
    ({"emotion": "furious"}, "心情只能从列表里选，收到的是“furious”。"),
    ({"content": "  "}, "请填写日程内容。"),
], ids=["no-such-day", "no-day", "bad-clock", "no-datetime", "bad-datetime", "bad-repeat", "significance-9",
        "intensity-words", "priority-words", "long-type", "bad-emotion", "no-content"])
def test_a_wrong_schedule_field_is_refused_in_words_and_nothing_is_sent(tmp_path, fields, said):
    client = dashboard(tmp_path)
    after = schedule_form(client, **fields)
    assert said in after.replace("&#34;", '"')
    assert queued_ops(tmp_path) == [] and '<span id="backlog">0</span>' in after


def test_the_schedule_form_is_refused_in_english_on_the_english_page(tmp_path):
    client = dashboard(tmp_path)
    client.get("/lang/en?next=/")
    after = schedule_form(client, significance="0")
    assert "Significance must be a whole number from 1 to 5, got &#39;0&#39;." in after
