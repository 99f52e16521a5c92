"""`xzmem integrate xiaozhi-server` selects the memory in the user's server config and nothing else.

The server (xiaozhi-esp32-server 0.9.6, config/config_loader.py) reads config.yaml, then
data/.config.yaml over it key by key, with PyYAML. The configs here have the shape users write:
a data/.config.yaml with their own ASR, LLM and TTS chosen, comments, and sometimes a memory
module of its own.
"""

import os
import subprocess
import sys
from collections.abc import Mapping

import pytest
import yaml
from xiaozhi_server_tree import make_server_tree

DEFAULTS = """\
# The server's own defaults (config.yaml), in its layout.
server:
  ip: 0.0.0.0
  port: 8000
selected_module:
  # voice activity
  VAD: SileroVAD
  ASR: FunASR
  LLM: ChatGLMLLM
  VLLM: ChatGLMVLLM
  TTS: EdgeTTS
  Memory: nomem
  Intent: function_call
Memory:
  mem0ai:
    type: mem0ai
    api_key: 你的mem0ai api key
  nomem:
    type: nomem
  mem_local_short:
    type: mem_local_short
    llm: ChatGLMLLM
LLM:
  ChatGLMLLM:
    type: openai
    model_name: glm-4-flash
  DeepSeekLLM:
    type: openai
    model_name: deepseek-chat
"""

USER = """\
# 我的配置：只写和默认不同的部分
server:
  port: 8000

selected_module:
  ASR: DoubaoASR   # 豆包语音识别
  LLM: DeepSeekLLM
  TTS: HuoshanDoubleStreamTTS
  Memory: mem_local_short

LLM:
  DeepSeekLLM:
    api_key: sk-user-key

Memory:
  mem_local_short:
    type: mem_local_short
    llm: DeepSeekLLM
"""


def merge(default, custom):
    # What the server's merge_configs does: custom wins, mappings merged key by key.
    if not isinstance(default, Mapping) or not isinstance(custom, Mapping):
        return custom
    out = dict(default)
    for key, value in custom.items():
        out[key] = merge(out[key], value) if key in out else value
    return out


def integrate(server_dir, tmp_path, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    env["XZMEM_CONFIG"] = str(tmp_path / "none.toml")
    return subprocess.run([sys.executable, "-m", "xzmem", "integrate", "xiaozhi-server", "--server-dir", str(server_dir),
                           "--device", "ws://192.168.1.50:8765/mcp", "--token", "tok:en#1", *extra],
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def server_dir(tmp_path):
    server = make_server_tree(tmp_path / "xiaozhi-esp32-server")
    (server / "config.yaml").write_text(DEFAULTS, encoding="utf-8")
    (server / "data").mkdir()
    return server


def test_only_the_memory_selection_is_added_to_the_users_config(tmp_path, server_dir):
    user_file = server_dir / "data" / ".config.yaml"
    user_file.write_text(USER, encoding="utf-8")
    done = integrate(server_dir, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "selected_module.Memory is xzmem (was mem_local_short)" in done.stdout
    text = user_file.read_text(encoding="utf-8")
    merged = merge(yaml.safe_load(DEFAULTS), yaml.safe_load(text))
    assert merged["selected_module"] == {"VAD": "SileroVAD", "ASR": "DoubaoASR", "LLM": "DeepSeekLLM",
                                         "VLLM": "ChatGLMVLLM", "TTS": "HuoshanDoubleStreamTTS",
                                         "Memory": "xzmem", "Intent": "function_call"}
    assert merged["Memory"]["xzmem"] == {"type": "xzmem", "device": "ws://192.168.1.50:8765/mcp",
                                         "token": "tok:en#1", "budget_tokens": 600}
    assert merged["Memory"]["mem_local_short"] == {"type": "mem_local_short", "llm": "DeepSeekLLM"}
    assert merged["LLM"]["DeepSeekLLM"]["api_key"] == "sk-user-key"
    # Every line of the user's file is still there, comments included; only two entries were added.
    old_lines, new_lines = USER.splitlines(), text.splitlines()
    assert [line for line in new_lines if line not in old_lines] == [
        "  Memory: xzmem", "  xzmem:", '    type: "xzmem"', '    device: "ws://192.168.1.50:8765/mcp"',
        '    token: "tok:en#1"', "    budget_tokens: 600"]
    assert [line for line in old_lines if line not in new_lines] == ["  Memory: mem_local_short"]
    assert (server_dir / "data" / ".config.yaml.before-xzmem").read_text(encoding="utf-8") == USER


def test_a_config_without_selection_or_memory_block_gets_both(tmp_path, server_dir):
    user_file = server_dir / "data" / ".config.yaml"
    user_file.write_text("LLM:\n  DeepSeekLLM:\n    api_key: sk-1\n", encoding="utf-8")
    assert integrate(server_dir, tmp_path).returncode == 0
    merged = merge(yaml.safe_load(DEFAULTS), yaml.safe_load(user_file.read_text(encoding="utf-8")))
    assert merged["selected_module"]["Memory"] == "xzmem" and merged["selected_module"]["LLM"] == "ChatGLMLLM"
    assert merged["LLM"]["DeepSeekLLM"]["api_key"] == "sk-1"


def test_a_one_line_selection_is_refused_and_left_alone(tmp_path, server_dir):
    user_file = server_dir / "data" / ".config.yaml"
    original = "selected_module: {LLM: DeepSeekLLM, TTS: EdgeTTS}\n"
    user_file.write_text(original, encoding="utf-8")
    done = integrate(server_dir, tmp_path)
    assert done.returncode == 1
    assert "written on one line" in done.stderr and "Traceback" not in done.stderr
    assert user_file.read_text(encoding="utf-8") == original


def test_a_config_run_from_the_manager_console_is_left_alone(tmp_path, server_dir):
    user_file = server_dir / "data" / ".config.yaml"
    original = "manager-api:\n  url: http://127.0.0.1:8002/xiaozhi\n  secret: s\n"
    user_file.write_text(original, encoding="utf-8")
    done = integrate(server_dir, tmp_path)
    assert done.returncode == 1 and "manager console" in done.stderr
    assert user_file.read_text(encoding="utf-8") == original


def test_broken_yaml_is_named_and_left_alone(tmp_path, server_dir):
    user_file = server_dir / "data" / ".config.yaml"
    user_file.write_text("selected_module:\n  LLM: [\n", encoding="utf-8")
    done = integrate(server_dir, tmp_path)
    assert done.returncode == 1 and "is not valid YAML" in done.stderr
    assert user_file.read_text(encoding="utf-8") == "selected_module:\n  LLM: [\n"


def test_config_file_names_another_config_and_without_a_device_nothing_is_changed(tmp_path, server_dir):
    other = tmp_path / "my-config.yaml"
    other.write_text(USER, encoding="utf-8")
    done = integrate(server_dir, tmp_path, "--config-file", str(other), "--data", str(tmp_path / "xz"))
    assert done.returncode == 0, done.stderr
    merged = yaml.safe_load(other.read_text(encoding="utf-8"))
    assert merged["selected_module"]["Memory"] == "xzmem"
    assert merged["Memory"]["xzmem"]["data"] == str(tmp_path / "xz")
    assert not (server_dir / "data" / ".config.yaml").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    env["XZMEM_CONFIG"] = str(tmp_path / "none.toml")
    bare = subprocess.run([sys.executable, "-m", "xzmem", "integrate", "xiaozhi-server", "--server-dir",
                           str(server_dir)], capture_output=True, text=True, env=env, timeout=60)
    assert bare.returncode == 0 and "is left as it is: give --device and --token" in bare.stdout
    assert not (server_dir / "data" / ".config.yaml").exists()
