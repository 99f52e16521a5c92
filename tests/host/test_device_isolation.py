"""One device never reaches another, nor the host's own files: in `xzmem gateway` each device has its
own token bound to its id, and only the device a request went to can answer it. The dashboard keeps
no session for a visitor who has not signed in, keeps a bounded number in all, and slows down password
guessing. The xiaozhi-esp32-server provider gives every role_id (the talking device's id, from the
connection's Device-Id header) a data folder of its own under `data/xiaozhi`, which no other id shares
and which no id can leave."""

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
from link_helpers import until
from starlette.testclient import TestClient
from xzmem.config import Config
from xzmem.dashboard.app import Dashboard, Settings
from xzmem.dashboard.security import LOGIN_FAILURES_PER_ADDRESS, MAX_SESSIONS
from xzmem.gateway.server import Gateway, device_token
from xzmem.integrations.settings import load_settings, role_dir_name

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


# Provider paths (issue 29, item 6)

BLOCK = {"type": "xzmem", "device": "ws://127.0.0.1:1/mcp", "token": "t"}


def folder_of(tmp_path, role_id):
    settings = load_settings(dict(BLOCK, data=str(tmp_path / "host")), Config())
    return settings.role_config(role_id).data_path


@pytest.mark.parametrize("first, second", [
    ("aa:bb:cc:dd:ee:ff", "aa_bb_cc_dd_ee_ff"),
    ("aa:bb:cc:dd:ee:ff", "aa.bb.cc.dd.ee.ff"),
    ("kid-1", "KID-1"),  # one folder on a case-blind file system
    ("a" * 64 + "x", "a" * 64 + "y"),
    ("小明", "小红"),
    ("x/y", "x_y"),
])
def test_two_role_ids_never_share_a_folder(tmp_path, first, second):
    one, two = folder_of(tmp_path, first), folder_of(tmp_path, second)
    assert one.name.lower() != two.name.lower()


@pytest.mark.parametrize("role_id", ["..", ".", "../..", "/etc", "a/../../b", "..\\..", "~"])
def test_no_role_id_leaves_the_providers_folder(tmp_path, role_id):
    folder = folder_of(tmp_path, role_id)
    assert folder.parent == tmp_path / "host" / "xiaozhi"
    assert folder.name not in (".", "..") and "/" not in folder.name and "\\" not in folder.name


@pytest.mark.parametrize("role_id", [None, "", "   ", "a\nb", "a\x00b", "x" * 129, True, 1.5, ["a"]])
def test_unusable_role_ids_are_refused_with_the_reason(tmp_path, role_id):
    with pytest.raises(ValueError, match="role_id"):
        folder_of(tmp_path, role_id)


def test_a_mac_and_a_plain_id_keep_their_readable_folders():
    assert role_dir_name("24:0a:c4:00:00:01") == "24_0a_c4_00_00_01"
    assert role_dir_name("kid-1") == "kid-1"
    assert role_dir_name(7) == "7"
