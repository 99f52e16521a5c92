"""`xzmem sieve` and `xzmem reflect` as a user runs them, against the fake LLM server."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner
from xzmem.cli.app import app
from xzmem.config import ConfigError, load_config
from xzmem.db import open_db

runner = CliRunner()


def env_for(tmp_path, fake_llm=None):
    env = {"XZMEM_CONFIG": str(tmp_path / "none.toml"), "XZMEM_DATA": str(tmp_path / "data"),
           "XZMEM_LLM_BASE_URL": "", "XZMEM_LLM_MODEL": "", "XZMEM_LLM_API_KEY": ""}
    if fake_llm is not None:
        config = tmp_path / "config.toml"
        config.write_text("[llm]\ntimeout = 2.0\nmax_retries = 0\n")
        env.update(XZMEM_CONFIG=str(config), XZMEM_LLM_BASE_URL=fake_llm.base_url, XZMEM_LLM_MODEL="fake")
    return env


def test_sieve_without_llm_runs_the_fast_channel_and_says_so_once(tmp_path):
    result = runner.invoke(app, ["sieve", "--user", "我叫小红，明天下午3点提醒我去开会", "--assistant", "好的", "--json"],
                           env=env_for(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stderr.count("LLM stages are off") == 1
    data = json.loads(result.stdout)
    assert {op["type"] for op in data["fast_ops"]} == {"name", "schedule"}
    assert data["deep_skipped"] == "llm off" and data["changes"]["skipped"] == "llm off"
    assert data["batches"][0]["ops"] == data["fast_ops"]


def test_sieve_with_llm_prints_memories_and_ops(tmp_path, fake_llm):
    fake_llm.reply({"memories": [{"content": "用户打算下个月去成都旅游", "category": "todo", "importance": 0.6,
                                  "source": "user"}]}, match="记忆提取器")
    fake_llm.reply([{"key": "mem_new1", "action": "add", "category": "todo", "payload": "用户打算下个月去成都旅游",
                     "importance": 6, "source": "user", "tags": ["旅行"]},
                    {"key": "mem_ghost", "action": "del", "category": "fact"}], match="维护陪伴型")
    result = runner.invoke(app, ["sieve", "--user", "我打算下个月去成都玩几天", "--assistant", "成都很适合吃美食！"],
                           env=env_for(tmp_path, fake_llm))
    assert result.exit_code == 0, result.output
    assert "用户打算下个月去成都旅游" in result.stdout
    assert "put_mem" in result.stdout
    assert "refused del mem_ghost: no memory with key mem_ghost" in result.stdout
    assert "LLM stages are off" not in result.stderr
    conn = open_db(tmp_path / "data")
    assert conn.execute("SELECT COUNT(*) FROM keyed_memories").fetchone()[0] == 1


def test_sieve_shows_the_schedule_a_dated_event_writes_and_each_field_it_dropped(tmp_path, fake_llm):
    birthday = {"content": "用户的妹妹8月8日过生日", "category": "relationship", "importance": 0.7, "source": "user",
                "event": {"title": "妹妹生日", "datetime": "08-08", "event_type": "生日", "emotion": "狂喜",
                          "significance": 4}}
    for as_json in (True, False):
        fake_llm.reply({"memories": [birthday]}, match="记忆提取器")
        fake_llm.reply([], match="维护陪伴型")
        args = ["sieve", "--user", "八月八号是我妹妹的生日", "--assistant", "记住啦！"] + (["--json"] if as_json else [])
        result = runner.invoke(app, args, env=env_for(tmp_path, fake_llm))
        assert result.exit_code == 0, result.output
        if as_json:
            data = json.loads(result.stdout)
            assert data["deep_ops"] == [{"op": "write", "type": "schedule", "content": "妹妹生日", "datetime": "08-08",
                                         "event_type": "生日", "significance": 4}]
            assert data["deep_ops"] in [b["ops"] for b in data["batches"]]
            assert data["errors"] == ["memories.0.event.emotion: must be one of neutral|happy|sad|excited|worried|"
                                      "touched, got '狂喜'; dropped"]
        else:
            assert "device writes (deep channel: dated events)" in result.stdout and "妹妹生日" in result.stdout
            assert "memories.0.event.emotion" in result.stderr


def test_sieve_reports_llm_errors_and_falls_back(tmp_path, fake_llm):
    fake_llm.reply("抱歉，我无法完成这个请求。", match="记忆提取器")
    fake_llm.reply(status=500, match="维护陪伴型")
    result = runner.invoke(app, ["sieve", "--user", "帮我记一下车停在B2层", "--assistant", "好的，B2层。", "--json"],
                           env=env_for(tmp_path, fake_llm))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["fallback"] is True and data["working_memories"][0]["importance"] == 0.3
    assert any("not JSON" in e for e in data["errors"]) and any("HTTP 500" in e for e in data["errors"])


def test_reflect_reads_a_text_conversation(tmp_path, fake_llm):
    conv = tmp_path / "conv.txt"
    conv.write_text("用户：我最近开始学游泳了\n助手：太好了！游泳对身体很好。\n")
    fake_llm.reply({"soul_state_code": "0110", "feedback_data": {"useful_memory_ids": [], "merge_groups": [],
                    "new_memories": {"knowledge": [{"judgment": "用户最近开始学游泳", "reasoning": "", "tags": ["运动"]}],
                                     "skill": [], "emotional": [], "event": []}}})
    result = runner.invoke(app, ["reflect", "--conversation", str(conv), "--json"], env=env_for(tmp_path, fake_llm))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["soul_state_code"] == "0110"
    assert [op["op"] for op in data["ops"]] == ["put_mem", "mood"]
    sent = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert "用户：我最近开始学游泳了" in sent


def test_reflect_bad_file_is_one_clear_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "robot", "content": "x"}]')
    result = runner.invoke(app, ["reflect", "--conversation", str(bad)], env=env_for(tmp_path))
    assert result.exit_code == 1
    assert "message 0 needs role user|assistant" in result.stderr
    missing = runner.invoke(app, ["reflect", "--conversation", str(tmp_path / "nope.json")], env=env_for(tmp_path))
    assert missing.exit_code == 1 and "nope.json" in missing.stderr


def test_config_file_and_environment(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[llm]\nbase_url = "http://127.0.0.1:11434/v1"\nmodel = "qwen2.5"\ntimeout = 5\n'
                    '[device]\nurl = "ws://192.168.4.1:8765/mcp"\ntoken = "t"\n[working]\nttl_minutes = 60\n')
    cfg = load_config(path, env={"XZMEM_LLM_MODEL": "deepseek-chat", "XZMEM_DATA": str(tmp_path / "d")})
    assert cfg.llm.model == "deepseek-chat" and cfg.llm.base_url == "http://127.0.0.1:11434/v1"
    assert cfg.llm.timeout == 5.0 and cfg.llm.enabled
    assert cfg.device.url.startswith("ws://") and cfg.working.ttl_minutes == 60.0
    assert cfg.data_path == tmp_path / "d"
    assert not load_config(tmp_path / "missing.toml", env={}).llm.enabled


@pytest.mark.parametrize(
    "text, message",
    [("[llm]\ntimeout = 'soon'\n", "timeout must be a float"), ("[llm]\nmodle = 'x'\n", "unknown key [llm] modle"),
     ("[nope]\na = 1\n", "unknown section [nope]"), ("[llm\n", "c.toml")],
)
def test_bad_config_names_the_problem(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(path, env={})
    result = runner.invoke(app, ["sieve", "--user", "x"], env=dict(env_for(tmp_path), XZMEM_CONFIG=str(path)))
    assert result.exit_code == 1 and result.stderr.startswith("xzmem: ")


def test_installed_console_script_runs(tmp_path):
    exe = Path(sys.executable).with_name("xzmem")
    env = dict(os.environ, **env_for(tmp_path))
    out = subprocess.run([str(exe), "sieve", "--user", "I live in Boston", "--json"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["fast_ops"] == [{"op": "write", "type": "location", "content": "Boston"}]


def test_markup_like_text_is_printed_as_is(tmp_path, fake_llm):
    fake_llm.reply({"memories": [{"content": "用户写了 [/red] 和 [bold]", "category": "fact", "importance": 0.5,
                                  "source": "user"}]}, match="记忆提取器")
    fake_llm.reply("[]", match="维护陪伴型")
    result = runner.invoke(app, ["sieve", "--user", "我喜欢 [/red] 这种写法", "--assistant", "好的"],
                           env=env_for(tmp_path, fake_llm))
    assert result.exit_code == 0, result.output
    assert "[/red]" in result.stdout and "[bold]" in result.stdout


def test_profile_hand_edits_survive_refresh(tmp_path, fake_llm):
    env = env_for(tmp_path, fake_llm)
    edit = runner.invoke(app, ["profile", "--set", "low_value_signals=前任的事; 体重", "--json"], env=env)
    assert edit.exit_code == 0, edit.output
    assert json.loads(edit.stdout)["manual"] == {"low_value_signals": ["前任的事", "体重"]}
    conn = open_db(tmp_path / "data")
    conn.execute("INSERT OR REPLACE INTO keyed_memories (key, record) VALUES (?, ?)", ("mem_job", json.dumps({
        "key": "mem_job", "category": "identity", "payload": "用户是一名护士", "importance": 8, "source": "user",
        "tags": [], "trigger_count": 1, "created_at": 1, "updated_at": 1, "last_triggered": 1}, ensure_ascii=False)))
    conn.commit()
    fake_llm.reply({"summary": "一名护士", "domains": ["护理"], "high_value_signals": [], "low_value_signals": ["天气"],
                    "language_preferences": "中文", "active_projects": []}, match="用户画像")
    refreshed = runner.invoke(app, ["profile", "--refresh", "--json"], env=env)
    assert refreshed.exit_code == 0, refreshed.output
    data = json.loads(refreshed.stdout)
    assert data["effective"]["summary"] == "一名护士"
    assert data["effective"]["low_value_signals"] == ["前任的事", "体重"]
    assert data["batches"][0]["ops"][0]["key"] == "mem_profile"
    bad = runner.invoke(app, ["profile", "--set", "mood=happy"], env=env)
    assert bad.exit_code == 1 and "profile field must be one of" in bad.stderr


def test_log_shows_raw_output_and_errors(tmp_path, fake_llm):
    env = env_for(tmp_path, fake_llm)
    fake_llm.reply("对不起，我不能输出 JSON", match="记忆提取器")
    fake_llm.reply("[]", match="维护陪伴型")
    runner.invoke(app, ["sieve", "--user", "帮我记一下车停在B2层", "--assistant", "好的"], env=env)
    shown = runner.invoke(app, ["log", "--stage", "sieve"], env=env)
    assert shown.exit_code == 0
    assert "对不起，我不能输出 JSON" in shown.stdout and "not JSON" in shown.stdout
    entries = json.loads(runner.invoke(app, ["log", "--json"], env=env).stdout)
    assert [e["stage"] for e in entries] == ["changes", "sieve"]


def test_log_shows_each_deep_memory_with_its_category_and_importance(tmp_path, fake_llm):
    env = env_for(tmp_path, fake_llm)
    fake_llm.reply({"memories": [{"content": "用户打算下个月去成都旅游", "category": "todo", "importance": 0.6,
                                  "source": "user"}]}, match="记忆提取器")
    fake_llm.reply("[]", match="维护陪伴型")
    runner.invoke(app, ["sieve", "--user", "我下个月想去成都玩", "--assistant", "好呀"], env=env)
    shown = runner.invoke(app, ["log", "--stage", "sieve"], env=env)
    assert shown.exit_code == 0
    assert "[todo, 0.6] 用户打算下个月去成都旅游" in shown.stdout


def test_the_dashboards_log_page_shows_a_deep_memory_with_its_category_and_importance(tmp_path, fake_llm, device):
    from starlette.testclient import TestClient
    from xzmem.config import Config
    from xzmem.dashboard.app import Dashboard, Settings
    from xzmem.pipelines.extraction_log import ExtractionLog

    env = env_for(tmp_path, fake_llm)
    fake_llm.reply({"memories": [{"content": "用户打算下个月去成都旅游", "category": "todo", "importance": 0.6,
                                  "source": "user"}]}, match="记忆提取器")
    fake_llm.reply("[]", match="维护陪伴型")
    runner.invoke(app, ["sieve", "--user", "我下个月想去成都玩", "--assistant", "好呀"], env=env)
    conn = open_db(tmp_path / "data")
    conn.execute("UPDATE extraction_log SET device_id = ?", (device.state.device_id,))
    conn.commit()
    assert ExtractionLog(conn).recent(1, "sieve")
    cfg = Config()
    cfg.host.data_dir = str(tmp_path / "data")
    with TestClient(Dashboard(Settings(device.url, "secret", cfg)).app(), base_url="http://127.0.0.1:8780") as client:
        page = client.get("/log").text
    assert "[待办, 0.6]</span> 用户打算下个月去成都旅游" in page
