"""A parent's corrections in the dashboard, in headless Chromium, on two simulated devices at once.

Two `xzmem sim` devices and one dashboard for each, both dashboards on one host data folder (as a
family with two companions would run them). The tests check what a parent would notice: a reject
never deletes a later correction, each dashboard shows only its own device's log and names the
device, every archived record of a busy day is on the timeline, each button acts on one schedule
exactly, a delete is asked about first, and the Chinese pages hold no English words.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from browser import browser  # noqa: F401  (a fixture)
from selenium.webdriver.common.by import By
from simdevice import TOKEN, SimDevice, call, session
from test_dashboard_browser import Dashboard, answers_text, submit
from typer.testing import CliRunner
from xzmem.cli.app import app as cli
from xzmem.config import Config
from xzmem.db import open_db
from xzmem.llm import LLMClient
from xzmem.pipelines.extraction_log import ExtractionLog
from xzmem.pipelines.runner import Pipelines

START = "2026-03-04T10:00"


def calls(url: str, tool: str, args_list: list[dict]) -> list:
    async def run():
        async with session(url) as s:
            return [await call(s, tool, a) for a in args_list]

    return anyio.run(run)


def one(url: str, tool: str, **args):
    (error, data), = calls(url, tool, [args])
    assert not error, data
    return data


class Companion:
    """One simulated device and its dashboard; `said(text)` runs the pipelines on a child's words
    (LLM off, as a new user starts) and delivers the batches, as `xzmem chat` does."""

    def __init__(self, device: SimDevice, dash: Dashboard, host: Path):
        self.device, self.dash, self.host = device, dash, host
        self.url = device.url
        self.id = one(self.url, "memory_sync", action="stats")["device_id"]

    def said(self, text: str) -> list[str]:
        cfg = Config()
        cfg.host.data_dir = str(self.host)
        pipelines = Pipelines(cfg, open_db(self.host), LLMClient(cfg.llm))
        pipelines.device_id = self.id
        outcome = anyio.run(pipelines.exchange, text, "")
        for batch in outcome.batches:
            one(self.url, "memory_sync", action="apply", batch_id=batch.batch_id, ops=batch.ops)
        return [f"{log_id}:fast:0" for log_id in outcome.log_ids[:1]]

    def read(self, **args) -> dict:
        return one(self.url, "memory", action="read", **args)

    def keyed(self) -> list[str]:
        """The payloads of the device's keyed memories (an export holds them)."""
        payloads, cursor = [], None
        while True:
            page = one(self.url, "memory_sync", action="export", limit=200, **({"cursor": cursor} if cursor else {}))
            payloads += [r["payload"] for r in page["records"] if r["type"] == "keyed"]
            cursor = page["next_cursor"]
            if not cursor:
                return payloads


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    host = tmp_path_factory.mktemp("host")
    devices = [SimDevice(tmp_path_factory.mktemp(f"device{n}"), "--start-time", START).start() for n in (1, 2)]
    dashes = [Dashboard(d.url, host).__enter__() for d in devices]
    try:
        yield [Companion(d, b, host) for d, b in zip(devices, dashes, strict=True)]
    finally:
        for d in dashes:
            d.__exit__(None, None, None)
        for d in devices:
            d.stop()


def reject(driver, companion: Companion, ref: str) -> None:
    driver.get(companion.dash.url + "/log")
    row = driver.find_element(By.CSS_SELECTOR, f'tr.item[data-ref="{ref}"]')
    submit(driver, row.find_element(By.CSS_SELECTOR, "button[data-reject]"))


def result_codes(driver) -> list[str]:
    return [e.get_attribute("data-result") for e in driver.find_elements(By.CSS_SELECTOR, "#answers [data-result]")]


def test_rejecting_an_old_entry_after_a_correction_keeps_the_current_value_on_both_devices(pair, browser):  # noqa: F811
    first, second = pair
    names = {first.id: ("小米粒", "陈小米"), second.id: ("豆豆", "王豆豆")}
    refs = {}
    for c in pair:
        old, new = names[c.id]
        refs[c.id] = c.said(f"我叫{old}")
        c.said(f"我叫{new}")
        assert c.read()["profile"]["name"] == new
    for c in pair:
        old, new = names[c.id]
        [ref] = refs[c.id]
        reject(browser, c, ref)
        assert result_codes(browser) == ["CHANGED"]
        assert "改过了" in answers_text(browser) and new in answers_text(browser)
        assert c.read()["profile"]["name"] == new  # read back: the correction is still there
        # Nothing was changed, so the entry is still open for a verdict.
        assert browser.find_elements(By.CSS_SELECTOR, f'tr.item[data-ref="{ref}"] button[data-reject]')

    # A like the parent already deleted by hand: its reject changes nothing either; one still there goes.
    [ref] = first.said("我喜欢画画")
    [kept] = first.said("我喜欢跳绳")
    one(first.url, "memory", action="delete", type="like", content="画画")
    one(first.url, "memory", action="write", type="like", content="踢球")
    reject(browser, first, ref)
    assert result_codes(browser) == ["CHANGED"]
    reject(browser, first, kept)
    assert result_codes(browser) == ["DELETED"]
    assert first.read()["preferences"]["likes"] == ["踢球"]


def test_a_keyed_memory_is_taken_back_only_while_it_says_what_the_entry_wrote(pair, browser):  # noqa: F811
    first, second = pair
    log = ExtractionLog(open_db(first.host), first.id)
    put = {"op": "put_mem", "key": "mem_pet1", "category": "fact", "payload": "养了一只仓鼠", "importance": 5,
           "source": "sieve"}
    refs = []
    for payload in ("养了一只仓鼠", "养了两只仓鼠"):
        op = dict(put, payload=payload)
        log_id = log.record("changes", {"user": payload, "assistant": "", "now": 1.0}, None, {"ops": [op]}, [], [])
        one(first.url, "memory_sync", action="apply", batch_id=f"keyed-{log_id}", ops=[op])
        refs.append(f"{log_id}:changes:0")
    reject(browser, first, refs[0])
    assert result_codes(browser) == ["CHANGED"]
    assert first.keyed() == ["养了两只仓鼠"]
    reject(browser, first, refs[1])
    assert result_codes(browser) == ["DELETED"]
    assert first.keyed() == []
    # The other device's dashboard does not show them.
    browser.get(second.dash.url + "/log")
    assert not browser.find_elements(By.CSS_SELECTOR, f'tr.item[data-ref="{refs[0]}"]')


def test_each_dashboard_shows_its_own_devices_log_and_names_it(pair, browser):  # noqa: F811
    first, second = pair
    first.said("我喜欢恐龙")
    second.said("我喜欢唱歌")
    for c, mine, theirs in ((first, "恐龙", "唱歌"), (second, "唱歌", "恐龙")):
        for path in ("/", "/timeline", "/edit", "/log", "/profile", "/schedules"):
            browser.get(c.dash.url + path)
            assert browser.find_element(By.ID, "device-name").text.endswith(c.id), path
        browser.get(c.dash.url + "/log")
        log = browser.find_element(By.TAG_NAME, "main").text
        assert mine in log and theirs not in log


def test_the_timeline_reaches_every_record_of_a_day_with_300_archived(pair, browser):  # noqa: F811
    first, second = pair
    offset = one(first.url, "memory_sync", action="stats")["clock"]["utc_offset"]
    day = int(datetime(2026, 2, 10, tzinfo=UTC).timestamp()) - offset  # local midnight
    # 300 facts archived on one local day; 30 of them learned in the same second.
    times = [day + 30 + n * 280 for n in range(270)] + [day + 40000] * 30
    records = [{"type": "archive", "record": {"id": 5000 + n, "type": "fact", "learned_at": t, "archived_at": t + 60,
                                              "content": f"旧事{n:03d}"}} for n, t in enumerate(times)]
    for n in range(0, 300, 25):  # 25 a call: a message to the device holds 4 KB
        answer = one(first.url, "memory_sync", action="import", batch_id=f"day-{n}", records=records[n:n + 25])
        assert {r["result"] for r in answer["results"]} == {"ADDED"}
    seen: list[tuple[str, str]] = []
    browser.get(first.dash.url + "/timeline?type=fact")
    for _ in range(40):
        for row in browser.find_elements(By.CSS_SELECTOR, "#timeline tbody tr"):
            cells = row.find_elements(By.TAG_NAME, "td")
            if len(cells) == 4 and cells[2].text.startswith("旧事"):
                seen.append((cells[0].text, cells[2].text))
        older = browser.find_elements(By.ID, "older")
        if not older:
            break
        submit(browser, older[0])
    assert len(seen) == 300
    assert sorted(text for _, text in seen) == sorted(f"旧事{n:03d}" for n in range(300))
    assert [when for when, _ in seen] == sorted((when for when, _ in seen), reverse=True)  # newest first
    # The other device's timeline holds none of them.
    browser.get(second.dash.url + "/timeline?q=旧事")
    assert "旧事" not in browser.find_element(By.ID, "timeline").text


def schedule_form(driver, content: str, when: str, action: str):
    item = driver.find_element(By.CSS_SELECTOR, f'[data-schedule="{content}@{when}"]')
    return item.find_element(By.CSS_SELECTOR, f'form[action="/schedules/{action}"] button')


def test_done_and_delete_act_on_one_of_two_schedules_with_the_same_text(pair, browser):  # noqa: F811
    first, second = pair
    for c in pair:
        for when in ("2026-03-06 08:00", "2026-03-06 20:00"):
            one(c.url, "memory", action="write", type="schedule", content="吃药", datetime=when, force=True)
    browser.get(first.dash.url + "/schedules")
    submit(browser, schedule_form(browser, "吃药", "2026-03-06 20:00", "complete"))
    assert result_codes(browser) == ["UPDATED"]
    left = [s["datetime"] for s in first.read(type="schedule")["items"] if s["content"] == "吃药"]
    assert left == ["2026-03-06 08:00"]

    submit(browser, schedule_form(browser, "吃药", "2026-03-06 08:00", "delete"))
    assert "确定要删除" in browser.find_element(By.ID, "confirm").text  # asked first: nothing gone yet
    assert "2026-03-06 08:00" in browser.find_element(By.ID, "confirm-what").text
    assert [s["content"] for s in first.read(type="schedule")["items"]].count("吃药") == 1
    submit(browser, browser.find_element(By.ID, "confirm-yes"))
    assert result_codes(browser) == ["DELETED"]
    assert "吃药" not in [s["content"] for s in first.read(type="schedule")["items"]]

    # The other device, from the command line: `xzmem forget schedule` with --datetime.
    env = {"XZMEM_CONFIG": str(first.host / "none.toml"), "XZMEM_DATA_DIR": str(first.host)}
    base = ["forget", "schedule", "吃药", "--device", second.url, "--token", TOKEN]
    both = CliRunner().invoke(cli, base, env=env)
    assert both.exit_code == 1 and "08:00" in both.output and "20:00" in both.output
    gone = CliRunner().invoke(cli, [*base, "--datetime", "2026-03-06 20:00"], env=env)
    assert gone.exit_code == 0 and "forgotten (DELETED)" in gone.output, gone.output
    assert [s["datetime"] for s in second.read(type="schedule")["items"] if s["content"] == "吃药"] == ["2026-03-06 08:00"]


def test_a_delete_is_asked_about_first_and_cancel_keeps_the_memory(pair, browser):  # noqa: F811
    for c in pair:
        one(c.url, "memory", action="write", type="like", content="拼图")
        browser.get(c.dash.url + "/edit")
        submit(browser, browser.find_element(By.CSS_SELECTOR, 'form[data-delete="like:拼图"] button'))
        assert "拼图" in browser.find_element(By.ID, "confirm-what").text
        submit(browser, browser.find_element(By.ID, "confirm-no"))
        assert "拼图" in c.read()["preferences"]["likes"]
        submit(browser, browser.find_element(By.CSS_SELECTOR, 'form[data-delete="like:拼图"] button'))
        submit(browser, browser.find_element(By.ID, "confirm-yes"))
        assert result_codes(browser) == ["DELETED"]
        assert "拼图" not in c.read()["preferences"]["likes"]


ENGLISH = re.compile(r"[A-Za-z]{2,}")


def test_the_chinese_pages_hold_no_english_words(pair, browser):  # noqa: F811
    for c in pair:
        one(c.url, "memory", action="write", type="gender", content="女")
        one(c.url, "memory", action="write", type="schedule", content="钢琴课", datetime="2026-03-07 16:00",
            repeat="weekly", force=True)
        one(c.url, "memory", action="write", type="moment", topic="生日", content="收到小狗", emotion="开心")
        c.said("今天天气不错")  # skipped by the deep channel: LLM off
        browser.get(c.dash.url + "/lang/zh?next=/")
        for path in ("/", "/timeline", "/edit", "/log", "/profile", "/schedules",
                     "/confirm?to=/edit/delete&type=like&old_content=拼图"):
            browser.get(c.dash.url + path)
            browser.execute_script("for (const id of ['device-name', 'lang-switch']) document.getElementById(id)?.remove()")
            shown = browser.find_element(By.TAG_NAME, "body").text
            options = " ".join(o.text for o in browser.find_elements(By.TAG_NAME, "option"))
            holders = " ".join(e.get_attribute("placeholder") or "" for e in browser.find_elements(By.TAG_NAME, "input"))
            words = ENGLISH.findall(" ".join((shown, options, holders)))
            assert words == [], (c.id, path, words)
        browser.get(c.dash.url + "/")
        assert browser.find_element(By.ID, "profile-gender").text == "女"
