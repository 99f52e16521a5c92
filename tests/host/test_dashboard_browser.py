"""`xzmem dashboard` in a real headless Chromium, against `xzmem sim` holding data.

The simulator and the dashboard run as the user would start them (two processes on free ports),
shared by the tests of this module, each of which works on records of its own; a test opens pages,
fills and submits forms, and checks both what the page shows and what the device then answers.
XZMEM_SAVE_SCREENSHOTS=docs/img makes the screenshot test refresh README's images.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from browser import browser  # noqa: F401  (a fixture)
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from simdevice import TOKEN, SimDevice, call, free_port, session
from xzmem.config import Config
from xzmem.db import open_db
from xzmem.llm import LLMClient
from xzmem.pipelines.runner import ExchangeOutcome, Pipelines

READY = "xzmem dashboard at "
SEED = [
    {"action": "write", "type": "name", "content": "王浩宇"},
    {"action": "write", "type": "age", "content": 9},
    {"action": "write", "type": "like", "content": "打篮球"},
    {"action": "write", "type": "dislike", "content": "香菜"},
    {"action": "write", "type": "location", "content": "上海"},
    {"action": "write", "type": "like", "content": "画画"},
    {"action": "write", "type": "family", "relation": "妈妈", "name": "李梅", "closeness": 5},
    {"action": "write", "type": "family", "relation": "爸爸", "name": "王强", "closeness": 4},
    {"action": "write", "type": "fact", "content": "在三年级二班"},
    {"action": "write", "type": "moment", "topic": "比赛", "content": "篮球赛投进了最后一球", "emotion": "happy"},
    {"action": "write", "type": "schedule", "content": "钢琴课", "datetime": "2026-03-05 16:00"},
    {"action": "write", "type": "schedule", "content": "交作业", "datetime": "2026-03-04 08:00"},
    {"action": "write", "type": "coins", "amount": 30},
]


def device_calls(url: str, calls: list[dict]) -> list:
    async def run():
        async with session(url) as s:
            return [await call(s, "memory", c) for c in calls]

    return anyio.run(run)


def device_read(url: str, **args) -> dict:
    (error, data), = device_calls(url, [{"action": "read", **args}])
    assert not error, data
    return data


class Dashboard:
    """`python -m xzmem dashboard` as a process; `url` once it printed its ready line."""

    def __init__(self, device_url: str, data: Path, *extra: str):
        self.port = free_port()
        while f":{self.port}/" in device_url:  # a device not started yet has not taken its port
            self.port = free_port()
        self.env = dict(os.environ, XZMEM_CONFIG=str(data / "none.toml"), XZMEM_DATA_DIR=str(data),
                        PYTHONUNBUFFERED="1")
        for var in ("XZMEM_LLM_BASE_URL", "XZMEM_LLM_MODEL", "XZMEM_LLM_API_KEY", "XZMEM_DASHBOARD_PASSWORD"):
            self.env.pop(var, None)
        self.cmd = [sys.executable, "-m", "xzmem", "dashboard", "--device", device_url, "--token", TOKEN,
                    "--listen", f"127.0.0.1:{self.port}", *extra]
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Dashboard:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env)
        line = self.proc.stdout.readline()
        if not line.startswith(READY):
            self.proc.kill()
            raise RuntimeError("dashboard did not start: " + line + self.proc.stdout.read())
        assert line.strip() == f"{READY}{self.url}/"
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


SIM_ID = ""  # the module simulator's device id, once it is up


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    global SIM_ID
    device = SimDevice(tmp_path_factory.mktemp("device"), "--start-time", "2026-03-04T10:00").start()
    answers = device_calls(device.url, SEED)
    assert all(not error for error, _ in answers), answers
    SIM_ID = anyio.run(_device_id, device.url)
    yield device
    device.stop()


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("host")


@pytest.fixture(scope="module")
def dash(sim, host):
    with Dashboard(sim.url, host) as dashboard:
        yield dashboard


async def _device_id(url: str) -> str:
    async with session(url) as s:
        error, stats = await call(s, "memory_sync", {"action": "stats"})
    assert not error, stats
    return stats["device_id"]


def form_for(driver, record: str):
    return driver.find_element(By.CSS_SELECTOR, f'form[data-record="{record}"]')


def save_record(driver, record: str, content: str) -> None:
    """Type `content` over the edit form of `record` (like:打篮球, age, ...) and save it."""
    form = form_for(driver, record)
    field = form.find_element(By.NAME, "content")
    field.clear()
    field.send_keys(content)
    submit(driver, form.find_element(By.TAG_NAME, "button"))


def submit(driver, button) -> None:
    """Click a form's button and wait until the page it posts to (after the redirect) has replaced this one."""
    # A mark on this page's window: the next page has a new window object without it. (Watching an
    # element of the old page go stale races with Chrome dropping its node mid-check.)
    driver.execute_script("window.xzmemOldPage = true")
    button.click()
    WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,)).until(lambda d: d.execute_script(
        "return window.xzmemOldPage === undefined && document.readyState === 'complete'"))


def answers_text(driver) -> str:
    return driver.find_element(By.ID, "answers").text


def results(driver) -> list[str]:
    """The device's answers on the page, as codes (the page says them in words)."""
    return [e.get_attribute("data-result") for e in driver.find_elements(By.CSS_SELECTOR, "#answers [data-result]")]


def test_overview_shows_the_name_and_the_like_and_the_edit_form_changes_the_like(sim, dash, browser):  # noqa: F811
    browser.get(dash.url + "/")
    person = browser.find_element(By.ID, "person").text
    assert "王浩宇" in person and "上海" in person
    assert "打篮球" in browser.find_element(By.ID, "likes").text
    assert "香菜" in browser.find_element(By.ID, "dislikes").text
    assert "妈妈 · 李梅" in browser.find_element(By.ID, "family").text
    assert "钢琴课" in browser.find_element(By.ID, "upcoming").text
    assert "交作业" in browser.find_element(By.ID, "missed").text  # 08:00 passed at 10:00
    assert "30" in browser.find_element(By.ID, "stage").text
    used, free = (int(x) for x in browser.find_element(By.ID, "health-nvs").text.split(" / "))
    assert used > 0 and free > 0
    # Looking is not telling: the companion's next read still has the missed reminder to say.
    assert "交作业" in [r["content"] for r in device_read(sim.url)["reminders"]]

    browser.get(dash.url + "/edit")
    save_record(browser, "like:打篮球", "踢足球")
    assert results(browser) == ["DELETED", "ADDED"]
    assert "已删除" in answers_text(browser) and "已添加" in answers_text(browser)
    likes = device_read(sim.url)["preferences"]["likes"]
    assert "踢足球" in likes and "打篮球" not in likes


def test_editing_a_fact_answers_updated_and_deleting_a_family_member_answers_deleted(sim, dash, browser):  # noqa: F811
    browser.get(dash.url + "/edit")
    save_record(browser, "location", "北京")
    assert results(browser) == ["UPDATED"]

    submit(browser, browser.find_element(By.CSS_SELECTOR, 'form[data-delete="family:王强"] button'))
    assert "王强" in browser.find_element(By.ID, "confirm-what").text  # asked first
    submit(browser, browser.find_element(By.ID, "confirm-yes"))
    assert results(browser) == ["DELETED"]
    assert "王强" not in browser.find_element(By.ID, "edit-family").get_attribute("innerHTML")
    overview = device_read(sim.url)
    assert overview["profile"]["location"] == "北京"
    assert [m["name"] for m in overview["family"]] == ["李梅"]


def test_a_conflict_offers_the_suggested_times_and_a_refusal_is_shown_in_words(sim, dash, browser):  # noqa: F811
    browser.get(dash.url + "/schedules")
    form = browser.find_element(By.ID, "schedule-form")
    form.find_element(By.NAME, "content").send_keys("游泳")
    browser.execute_script("document.querySelector('#schedule-form [name=datetime]').value = '2026-03-05T16:10'")
    submit(browser, form.find_element(By.CSS_SELECTOR, "button"))
    shown = answers_text(browser)
    assert results(browser) == ["CONFLICT"] and "钢琴课" in shown
    suggestions = browser.find_elements(By.CSS_SELECTOR, "button.suggest")
    assert suggestions, shown
    chosen = suggestions[0].text.split()[-1]
    submit(browser, suggestions[0])
    assert results(browser) == ["ADDED"]
    assert f"{chosen} 游泳" in browser.find_element(By.ID, "week").text

    age = device_read(sim.url)["profile"]["age"]
    browser.get(dash.url + "/edit")
    save_record(browser, "age", "两百")
    refusal = browser.find_element(By.CSS_SELECTOR, "#answers .result.refused").text
    reason = refusal.split(":", 1)[1].strip()
    assert refusal.startswith("设备拒绝了") and len(reason) > 5, refusal
    assert device_read(sim.url)["profile"]["age"] == age


def test_a_birthday_entered_as_a_yearly_day_with_its_feeling_is_stored_and_shown(sim, dash, browser):  # noqa: F811
    browser.get(dash.url + "/schedules")
    form = browser.find_element(By.ID, "schedule-form")
    form.find_element(By.NAME, "content").send_keys("奶奶生日")
    form.find_element(By.CSS_SELECTOR, '[name=when][value=yearly]').click()
    form.find_element(By.NAME, "month_day").send_keys("3月20日")
    form.find_element(By.NAME, "event_type").send_keys("生日")
    form.find_element(By.CSS_SELECTOR, '[name=emotion] option[value=happy]').click()
    for name, value in (("intensity", "4"), ("significance", "5")):
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    submit(browser, form.find_element(By.CSS_SELECTOR, "button"))
    assert results(browser) == ["ADDED"], answers_text(browser)
    [stored] = [s for s in device_read(sim.url, type="schedule")["items"] if s["content"] == "奶奶生日"]
    assert stored["datetime"] == "2026-03-20 09:00" and stored["repeat"] == "yearly"
    assert (stored["event_type"], stored["emotion"], stored["intensity"], stored["significance"]) == ("生日", "happy", 4, 5)
    shown = browser.find_element(By.CSS_SELECTOR, '[data-schedule="奶奶生日@2026-03-20 09:00"]').text
    assert "每年" in shown and "生日" in shown and "开心 4/5" in shown and "重要程度 5/5" in shown

    # A yearly day at a clock that clashes: kept as it was typed when added anyway from the answer.
    form = browser.find_element(By.ID, "schedule-form")
    form.find_element(By.NAME, "content").send_keys("钢琴比赛")
    form.find_element(By.CSS_SELECTOR, '[name=when][value=yearly]').click()
    form.find_element(By.NAME, "month_day").send_keys("03-05")
    browser.execute_script("document.querySelector('#schedule-form [name=yearly_time]').value = '16:00'")
    form.find_element(By.NAME, "event_type").send_keys("比赛")
    submit(browser, form.find_element(By.CSS_SELECTOR, "button"))
    assert results(browser) == ["CONFLICT"] and "钢琴课" in answers_text(browser)
    submit(browser, browser.find_element(By.CSS_SELECTOR, "button.force"))
    assert results(browser) == ["ADDED"], answers_text(browser)
    [stored] = [s for s in device_read(sim.url, type="schedule")["items"] if s["content"] == "钢琴比赛"]
    assert (stored["datetime"], stored["repeat"], stored["event_type"]) == ("2026-03-05 16:00", "yearly", "比赛")

    # A day the calendar lacks is refused on the page, in words, and nothing reaches the device.
    form = browser.find_element(By.ID, "schedule-form")
    form.find_element(By.NAME, "content").send_keys("不存在的日子")
    form.find_element(By.CSS_SELECTOR, '[name=when][value=yearly]').click()
    form.find_element(By.NAME, "month_day").send_keys("02-30")
    submit(browser, form.find_element(By.CSS_SELECTOR, "button"))
    assert "“02-30”不是日历上的一天" in answers_text(browser)
    assert "不存在的日子" not in [s["content"] for s in device_read(sim.url, type="schedule")["items"]]


def exchange(data: Path, user: str, device_id: str | None = None) -> ExchangeOutcome:
    """The pipelines on one exchange (LLM off) for the device `device_id` (the module's simulator
    by default), with the dashboard's data directory."""
    cfg = Config()
    cfg.host.data_dir = str(data)
    pipelines = Pipelines(cfg, open_db(data), LLMClient(cfg.llm))
    pipelines.device_id = device_id or SIM_ID
    return anyio.run(pipelines.exchange, user, "")


def test_rejecting_an_extracted_memory_takes_it_back_from_the_device(sim, dash, host, browser):  # noqa: F811
    outcome = exchange(host, "我喜欢画画")
    assert outcome.sieve.fast_ops == [{"op": "write", "type": "like", "content": "画画"}]
    ref = f"{outcome.log_ids[0]}:fast:0"
    browser.get(dash.url + "/log")
    item = browser.find_element(By.CSS_SELECTOR, f'tr.item[data-ref="{ref}"]')
    assert "喜欢 画画" in item.text
    submit(browser, item.find_element(By.CSS_SELECTOR, "button[data-reject]"))
    assert results(browser) == ["DELETED"]
    assert browser.find_element(By.CSS_SELECTOR, f'tr.item[data-ref="{ref}"] .verdict.rejected')
    assert "画画" not in device_read(sim.url)["preferences"]["likes"]


def test_rejecting_a_birthday_the_llm_heard_takes_the_yearly_schedule_back(sim, dash, host, browser, fake_llm, llm_config):  # noqa: F811
    cfg = Config(llm=llm_config)
    cfg.host.data_dir = str(host)
    pipelines = Pipelines(cfg, open_db(host), LLMClient(cfg.llm))
    pipelines.device_id = SIM_ID
    pipelines.local_time = lambda _: datetime(2026, 3, 4, 10, 0)
    fake_llm.reply({"memories": [{"content": "用户的爷爷4月2日过生日", "category": "relationship", "importance": 0.7,
                                  "source": "user", "event": {"title": "爷爷生日", "datetime": "04-02",
                                                              "event_type": "生日", "significance": 4}}]},
                   match="记忆提取器")
    fake_llm.reply([], match="维护陪伴型")
    outcome = anyio.run(pipelines.exchange, "四月二号是我爷爷的生日", "记住啦，到时候提醒你给爷爷打电话。")
    [batch] = [b for b in outcome.batches if b.batch_id.startswith("sieve-deep-")]
    (error, answer), = anyio.run(_apply, sim.url, batch)
    assert not error, answer
    assert "爷爷生日" in [s["content"] for s in device_read(sim.url, type="schedule")["items"]]

    ref = f"{outcome.log_ids[0]}:event:0"
    browser.get(dash.url + "/log")
    item = browser.find_element(By.CSS_SELECTOR, f'tr.item[data-ref="{ref}"]')
    assert "日程 爷爷生日" in item.text
    submit(browser, item.find_element(By.CSS_SELECTOR, "button[data-reject]"))
    assert results(browser) == ["DELETED"], answers_text(browser)
    assert "爷爷生日" not in [s["content"] for s in device_read(sim.url, type="schedule")["items"]]


async def _apply(url: str, batch) -> list:
    async with session(url) as s:
        return [await call(s, "memory_sync", {"action": "apply", **batch.to_json()})]


def test_a_never_remember_topic_makes_a_later_turn_write_nothing(dash, host, browser):  # noqa: F811
    browser.get(dash.url + "/log")
    form = browser.find_element(By.ID, "never-form")
    form.find_element(By.NAME, "topic").send_keys("游戏")
    submit(browser, form.find_element(By.TAG_NAME, "button"))
    assert "游戏" in browser.find_element(By.ID, "never-rules").text
    later = exchange(host, "我喜欢玩游戏")
    assert later.sieve.fast_ops == [] and later.batches == []
    assert later.sieve.skipped == later.changes.skipped == "never remember: 游戏"
    other = exchange(host, "我喜欢唱歌")
    assert other.sieve.fast_ops == [{"op": "write", "type": "like", "content": "唱歌"}]
    browser.get(dash.url + "/log")
    assert "不记住的话题：游戏" in browser.find_element(By.TAG_NAME, "main").text


def test_changes_wait_in_the_outbox_while_the_device_is_away(tmp_path, browser):  # noqa: F811
    device = SimDevice(tmp_path / "device", "--start-time", "2026-03-04T10:00", port=free_port())
    with Dashboard(device.url, tmp_path / "host") as dash:
        browser.get(dash.url + "/edit")
        assert browser.find_element(By.ID, "device-away")
        form = browser.find_element(By.ID, "add-form")
        form.find_element(By.NAME, "content").send_keys("下棋")
        form.find_element(By.CSS_SELECTOR, "select[name=type] option[value=like]").click()
        submit(browser, form.find_element(By.TAG_NAME, "button"))
        assert "发件箱" in answers_text(browser)
        assert browser.find_element(By.ID, "backlog").text == "1"
        with device:
            browser.get(dash.url + "/")
            assert "下棋" in browser.find_element(By.ID, "likes").text
            assert browser.find_element(By.ID, "backlog").text == "0"


def test_the_timeline_pages_through_every_memory_newest_first(sim, dash, browser):  # noqa: F811
    facts = [{"action": "write", "type": "fact", "content": f"第{n}件事"} for n in range(30)]
    assert all(not e for e, _ in device_calls(sim.url, facts))
    seen: list[str] = []
    places: set[str] = set()
    browser.get(dash.url + "/timeline?type=fact")
    for _ in range(5):
        rows = [r.find_elements(By.TAG_NAME, "td") for r in browser.find_elements(By.CSS_SELECTOR, "#timeline tbody tr")]
        assert len(rows) <= 20
        seen += [cells[2].text for cells in rows]
        places |= {cells[3].get_attribute("data-where") for cells in rows}
        older = browser.find_elements(By.ID, "older")
        if not older:
            break
        submit(browser, older[0])
    # 31 facts: 20 stay in NVS, the oldest went to the archive, and the pages hold each once.
    assert sorted(seen) == sorted([f"第{n}件事" for n in range(30)] + ["在三年级二班"])
    assert places == {"nvs", "archive"}
    browser.get(dash.url + "/timeline?q=" + "篮球")
    text = browser.find_element(By.ID, "timeline").text
    assert "篮球赛投进了最后一球" in text and "第1件事" not in text


def test_every_page_renders_in_both_languages_and_screenshots(dash, host, browser, tmp_path):  # noqa: F811
    out = Path(os.environ.get("XZMEM_SAVE_SCREENSHOTS") or tmp_path / "shots")
    out.mkdir(parents=True, exist_ok=True)
    exchange(host, "我妈妈叫李梅，我喜欢打篮球")
    browser.get(dash.url + "/profile")
    for field, value in (("summary", "喜欢运动的三年级男孩，和妈妈很亲"), ("domains", "篮球；画画; 钢琴")):
        form = browser.find_element(By.CSS_SELECTOR, f'form[data-field="{field}"]')
        form.find_element(By.NAME, "value").send_keys(value)
        submit(browser, form.find_element(By.TAG_NAME, "button"))
        assert results(browser) == ["UPDATED"]
    submit(browser, browser.find_element(By.CSS_SELECTOR, "#profile-refresh button"))
    assert results(browser) == ["NOT_SYNTHESIZED"]  # no LLM and no core memories: the hand edits stay
    assert browser.find_element(By.CSS_SELECTOR, 'form[data-field="domains"] [name=value]').get_attribute("value") == "篮球; 画画; 钢琴"
    for lang in ("zh", "en"):
        browser.get(f"{dash.url}/lang/{lang}?next=/")
        for page, path, marker in [("overview", "/", "王浩宇"), ("timeline", "/timeline", "<td class=\"when\">2026-03-0"),
                                   ("edit", "/edit", "李梅"), ("log", "/log", "打篮球"),
                                   ("profile", "/profile", "三年级男孩"), ("schedules", "/schedules", "钢琴课")]:
            browser.get(dash.url + path)
            assert marker in browser.page_source
            nav = browser.find_element(By.ID, "nav-overview").text
            assert nav == ("Overview" if lang == "en" else "概览")
            if lang == "zh":
                browser.save_screenshot(str(out / f"dashboard-{page}.png"))
    for page in ("overview", "timeline", "edit", "log", "profile", "schedules"):
        assert (out / f"dashboard-{page}.png").stat().st_size > 10_000
