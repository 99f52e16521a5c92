"""Host test fixtures: a fake device over WebSocket, the fake OpenAI-compatible server, configs."""

import pytest
from fake_device import DeviceState, FakeDevice
from fake_llm import fake_llm  # noqa: F401  (a fixture)
from xzmem.config import Config, LLMConfig


@pytest.fixture
def device():
    """A running fake device (token "secret"); stopped after the test."""
    fake = FakeDevice(DeviceState()).start()
    yield fake
    fake.stop()


@pytest.fixture
def llm_config(fake_llm):  # noqa: F811
    """A Config whose LLM is the fake server: short timeout, one retry, data in a temp dir."""
    return LLMConfig(base_url=fake_llm.base_url, api_key="test-key", model="fake-model", timeout=1.0, max_retries=1)


@pytest.fixture
def config(llm_config, tmp_path):
    cfg = Config(llm=llm_config)
    cfg.host.data_dir = str(tmp_path / "data")
    return cfg


@pytest.fixture
def ran(monkeypatch):
    """Command lines the board plans would have run (esptool, mpremote); no board stands behind them."""
    from xzmem.board import plans

    calls = []
    monkeypatch.setattr(plans, "run_command", calls.append)
    return calls


@pytest.fixture
def port(tmp_path):
    """A serial port path that exists (an empty file): plans accept it, and nothing answers on it."""
    dev = tmp_path / "ttyUSB7"
    dev.write_bytes(b"")
    return str(dev)
