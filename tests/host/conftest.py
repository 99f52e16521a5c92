"""Host test fixtures: a fake device served over WebSocket on 127.0.0.1."""

import pytest
from fake_device import DeviceState, FakeDevice


@pytest.fixture
def device():
    """A running fake device (token "secret"); stopped after the test."""
    fake = FakeDevice(DeviceState()).start()
    yield fake
    fake.stop()
