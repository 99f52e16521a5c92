"""One device never reaches another: in `xzmem gateway` each device has its own token bound to its
id, and only the device a request went to can answer it. The dashboard keeps no session for a
visitor who has not signed in, keeps a bounded number in all, and slows down password guessing."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
import websockets
from starlette.testclient import TestClient
from xzmem.config import Config
from xzmem.dashboard.app import Dashboard, Settings
from xzmem.dashboard.security import LOGIN_FAILURES_PER_ADDRESS, MAX_SESSIONS
from xzmem.gateway.server import Gateway, device_token

pytestmark = [pytest.mark.timeout(60), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

TOKEN = "gateway-token-29"
KITCHEN, BEDROOM = "24:0a:c4:00:00:0a", "24:0a:c4:00:00:0b"


def device_url(gw, device_id, token):
    return f"{gw.url}/mcp/?token={quote(token, safe='')}&device={quote(device_id, safe='')}"


def host_url(gw, device_id, token=TOKEN):
    return f"{gw.url}/devices/{device_id}/mcp?token={quote(token, safe='')}"


async def status_of(url):
    try:
        ws = await websockets.connect(url)
    except websockets.InvalidStatus as e:
        return e.response.status_code
    await ws.close()
    return 101


async def until(condition, timeout=5.0):
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


# ---- the gateway ----


def test_a_device_token_opens_only_its_own_id_and_no_host_path():
    async def main():
        async with Gateway(TOKEN, port=0) as gw:
            kitchen = device_token(TOKEN, KITCHEN)
            assert kitchen != device_token(TOKEN, BEDROOM) and kitchen != TOKEN
            async with websockets.connect(device_url(gw, BEDROOM, device_token(TOKEN, BEDROOM))):
                await until(lambda: BEDROOM in gw.devices)
                refused = {
                    "kitchen's token as the bedroom": await status_of(device_url(gw, BEDROOM, kitchen)),
                    "the host's token as a device": await status_of(device_url(gw, BEDROOM, TOKEN)),
                    "kitchen's token on the bedroom's host path": await status_of(host_url(gw, BEDROOM, kitchen)),
                }
                assert refused == dict.fromkeys(refused, 401), refused
                assert await status_of(device_url(gw, KITCHEN, kitchen)) == 101
                assert await status_of(host_url(gw, BEDROOM)) == 101

    asyncio.run(main())


def test_an_impostor_cannot_take_over_a_connected_device_id():
    async def main():
        async with Gateway(TOKEN, port=0) as gw:
            async with websockets.connect(device_url(gw, BEDROOM, device_token(TOKEN, BEDROOM))) as real:
                await until(lambda: BEDROOM in gw.devices)
                session = gw.devices[BEDROOM]
                for guess in (TOKEN, device_token(TOKEN, KITCHEN), "x" * 24, device_token("other", BEDROOM)):
                    assert await status_of(device_url(gw, BEDROOM, guess)) == 401
                assert gw.devices[BEDROOM] is session and gw.refused_devices[BEDROOM] == 4
                async with websockets.connect(host_url(gw, BEDROOM)) as host:
                    await host.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
                    forwarded = json.loads(await real.recv())
                    await real.send(json.dumps({"jsonrpc": "2.0", "id": forwarded["id"], "result": {}}))
                    assert json.loads(await host.recv()) == {"jsonrpc": "2.0", "id": 1, "result": {}}

    asyncio.run(main())


def test_answers_reach_the_host_only_from_the_device_the_request_went_to():
    async def main():
        async with Gateway(TOKEN, port=0) as gw:
            async with (websockets.connect(device_url(gw, BEDROOM, device_token(TOKEN, BEDROOM))) as bedroom,
                        websockets.connect(device_url(gw, KITCHEN, device_token(TOKEN, KITCHEN))) as kitchen):
                await until(lambda: BEDROOM in gw.devices and KITCHEN in gw.devices)
                forged = real = 0
                async with websockets.connect(host_url(gw, BEDROOM)) as host:
                    for i in range(12):
                        await host.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                                    "params": {"name": "memory", "arguments": {"action": "read"}}}))
                        gid = json.loads(await bedroom.recv())["id"]
                        # The kitchen device answers first, with the very id the gateway used (the worst case).
                        await kitchen.send(json.dumps({"jsonrpc": "2.0", "id": gid, "result": {"forged": True}}))
                        await asyncio.sleep(0.05)
                        await bedroom.send(json.dumps({"jsonrpc": "2.0", "id": gid, "result": {"real": True}}))
                        answer = json.loads(await asyncio.wait_for(host.recv(), 5))
                        assert answer["id"] == i
                        forged += answer["result"] == {"forged": True}
                        real += answer["result"] == {"real": True}
                print(f"forged answers that reached the host: {forged} of 12; real: {real}")
                assert (forged, real) == (0, 12)
                assert gw.forged_answers == 12

    asyncio.run(main())


# ---- the dashboard ----

AWAY = "ws://127.0.0.1:1/mcp"
BASE = "http://127.0.0.1:8780"


def dashboard(tmp_path, password):
    cfg = Config()
    cfg.host.data_dir = str(tmp_path / "host")
    board = Dashboard(Settings(AWAY, "token-123", cfg, password=password))
    return board, TestClient(board.app(), base_url=BASE)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_visitors_who_have_not_signed_in_leave_no_session_and_sessions_are_bounded(tmp_path):
    board, _ = dashboard(tmp_path, "correct horse")
    for path in ("/", "/login", "/timeline", "/edit") * 50:
        visitor = TestClient(board.app(), base_url=BASE)  # a fresh client: no cookie
        assert visitor.get(path, follow_redirects=False).status_code in (200, 303)
    assert len(board.sessions) == 0
    for _ in range(MAX_SESSIONS + 40):
        user = TestClient(board.app(), base_url=BASE)
        login = user.get("/login")
        signed = user.post("/login", data={"password": "correct horse", "csrf": csrf_of(login.text)},
                           follow_redirects=False)
        assert signed.status_code == 303
    assert len(board.sessions) == MAX_SESSIONS
    assert user.get("/", follow_redirects=False).status_code == 200  # the newest is kept


def test_password_guessing_is_stopped_after_a_few_tries(tmp_path):
    _, client = dashboard(tmp_path, "correct horse")
    statuses = []
    for n in range(100):
        login = client.get("/login")
        guess = client.post("/login", data={"password": f"guess-{n}", "csrf": csrf_of(login.text)})
        statuses.append(guess.status_code)
    assert statuses[:LOGIN_FAILURES_PER_ADDRESS] == [401] * LOGIN_FAILURES_PER_ADDRESS
    assert set(statuses[LOGIN_FAILURES_PER_ADDRESS:]) == {429}, statuses
    print(f"guesses checked: {statuses.count(401)} of 100")
    # Even the right password waits now: a guesser cannot tell when it got it.
    login = client.get("/login")
    late = client.post("/login", data={"password": "correct horse", "csrf": csrf_of(login.text)}, follow_redirects=False)
    assert late.status_code == 429 and int(late.headers["retry-after"]) > 0


def test_device_config_prints_lines_a_device_connects_with():
    async def main():
        async with Gateway(TOKEN, port=0) as gw:
            proc = await asyncio.create_subprocess_exec(
                str(Path(sys.executable).parent / "xzmem"), "gateway", "--listen", f"127.0.0.1:{gw.port}",
                "--token", TOKEN, "--device-config", KITCHEN, "--device-config", BEDROOM,
                stdout=asyncio.subprocess.PIPE, env=dict(os.environ, COLUMNS="300"))
            out = (await asyncio.wait_for(proc.communicate(), 30))[0].decode()
            assert proc.returncode == 0, out
            lines = [json.loads("{" + line + "}") for line in out.splitlines() if line.strip()]
            assert [x["device_id"] for x in lines] == [KITCHEN, KITCHEN, BEDROOM, BEDROOM]
            kitchen, bedroom = lines[0], lines[3]
            assert kitchen["trusted_links"] == "endpoint" and bedroom["trusted_links"] == "xiaozhi"
            async with websockets.connect(kitchen["endpoint_url"], additional_headers={"Device-Id": KITCHEN}):
                await until(lambda: KITCHEN in gw.devices)
            headers = {"Authorization": f"Bearer {bedroom['xiaozhi_token']}", "Device-Id": BEDROOM}
            async with websockets.connect(bedroom["xiaozhi_url"], additional_headers=headers) as ws:
                await ws.send(json.dumps({"type": "hello", "version": 1, "features": {"mcp": True}}))
                assert json.loads(await ws.recv())["type"] == "hello"
            # The kitchen's line does not open the bedroom.
            wrong = kitchen["endpoint_url"] + "&device=" + quote(BEDROOM, safe="")
            assert await status_of(wrong) == 401

    asyncio.run(main())
