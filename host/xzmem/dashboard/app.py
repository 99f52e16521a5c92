"""The dashboard's web app (Starlette, Jinja2 pages): six pages, and form posts that change memory.

Every page is rendered on the server from what the device answers at that moment; every change is
a form POST carrying the session's CSRF token, answered with a redirect back to the page, which then
shows the device's answer (ADDED / UPDATED / DELETED / NOOP, or its refusal in words).
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from xzmem.config import Config
from xzmem.dashboard.device import (
    PROFILE_TYPES,
    Answer,
    DeviceAccess,
    Link,
    delete_call,
    export_all,
    replace_calls,
)
from xzmem.dashboard.forms import FormProblem, schedule_call
from xzmem.dashboard.review import Review, retract_op
from xzmem.dashboard.security import COOKIE, LOGIN_COOKIE, Session, Sessions, allowed_hosts
from xzmem.dashboard.texts import form_problem_text, pick_language, skip_text, text, value_text
from xzmem.dashboard.timeline import FILTERS, Cursor, schedule_time, timeline_page
from xzmem.db import open_db
from xzmem.device import ops as opslib
from xzmem.device.client import DeviceError
from xzmem.llm import LLMClient
from xzmem.pipelines.profile import FIELDS, LIST_FIELDS
from xzmem.pipelines.runner import Pipelines

STATIC = Path(__file__).parent / "static"
ADD_TYPES = PROFILE_TYPES + ("like", "dislike", "family", "fact", "trait", "habit", "goal", "moment")
EDIT_GROUPS = ("like", "dislike", "family", "fact", "trait", "habit", "goal", "moment")
LANG_COOKIE = "xzmem_lang"
CONFIRMED = {"/edit/delete": "/edit", "/schedules/delete": "/schedules"}  # deletes asked about first, and where "cancel" goes
CONFIRM_SHOWN = ("relation", "old_relation", "name", "old_name", "topic", "content", "old_content", "datetime", "key")


@dataclass
class Settings:
    target: str
    token: str | None
    config: Config
    host: str = "127.0.0.1"
    port: int = 8780
    password: str | None = None


class Dashboard:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.device = DeviceAccess(settings.target, settings.token, settings.config.data_path)
        self.sessions = Sessions(settings.password)
        self.hosts = allowed_hosts(settings.host, settings.port)
        self.device_language: str | None = None
        self._offset = 8 * 3600  # the device's UTC offset, refreshed from its stats by the timeline
        self._conn: sqlite3.Connection | None = None
        self._pipelines: Pipelines | None = None
        self.templates = Environment(
            loader=PackageLoader("xzmem.dashboard", "templates"), autoescape=select_autoescape(["html"])
        )

    # --- the host's own state (SQLite), opened on first use inside the server's event loop ---------

    @property
    def pipelines(self) -> Pipelines:
        if self._pipelines is None:
            self._conn = open_db(self.settings.config.data_path)
            self._pipelines = Pipelines(self.settings.config, self._conn, LLMClient(self.settings.config.llm))
        return self._pipelines

    @property
    def review(self) -> Review:
        return Review(self.pipelines.log.conn)

    # --- plumbing: sessions, CSRF, language, rendering ---------------------------------------------

    def app(self) -> Starlette:
        routes = [
            Route("/", self.page(self.overview)),
            Route("/timeline", self.page(self.timeline)),
            Route("/edit", self.page(self.edit)),
            Route("/edit/add", self.action(self.edit_add), methods=["POST"]),
            Route("/edit/replace", self.action(self.edit_replace), methods=["POST"]),
            Route("/edit/delete", self.action(self.edit_delete), methods=["POST"]),
            Route("/log", self.page(self.log)),
            Route("/log/verdict", self.action(self.log_verdict), methods=["POST"]),
            Route("/log/never", self.action(self.never_add), methods=["POST"]),
            Route("/log/never/remove", self.action(self.never_remove), methods=["POST"]),
            Route("/profile", self.page(self.profile)),
            Route("/profile/set", self.action(self.profile_set), methods=["POST"]),
            Route("/profile/clear", self.action(self.profile_clear), methods=["POST"]),
            Route("/profile/refresh", self.action(self.profile_refresh), methods=["POST"]),
            Route("/schedules", self.page(self.schedules)),
            Route("/schedules/add", self.action(self.schedule_add), methods=["POST"]),
            Route("/schedules/complete", self.action(self.schedule_complete), methods=["POST"]),
            Route("/schedules/delete", self.action(self.schedule_delete), methods=["POST"]),
            Route("/confirm", self.page(self.confirm)),
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/lang/{code}", self.set_language),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
        return Starlette(routes=routes)

    def _host_ok(self, request: Request) -> bool:
        return not self.hosts or request.headers.get("host", "") in self.hosts

    def _session(self, request: Request) -> tuple[str | None, Session | None]:
        return self.sessions.get(request.cookies.get(COOKIE))

    @staticmethod
    def _with_cookie(response: Response, key: str) -> Response:
        response.set_cookie(COOKIE, key, httponly=True, samesite="strict")
        return response

    def _lang(self, request: Request) -> str:
        return pick_language(request.cookies.get(LANG_COOKIE), self.device_language)

    def render(self, request: Request, session: Session, name: str, **context: Any) -> HTMLResponse:
        lang = self._lang(request)
        flash, session.flash = session.flash, []
        def t(key: str) -> str:
            return text(lang, key)

        html = self.templates.get_template(name).render(
            t=t, lang=lang, csrf=session.csrf, flash=flash, path=request.url.path, backlog=self.device.backlog(),
            words=lambda group, value: value_text(lang, group, value), skip=lambda reason: skip_text(lang, reason),
            said=lambda answer: said(answer, t), **context,
        )
        return HTMLResponse(html)

    def page(self, handler: Callable[[Request, Session, Link], Awaitable[Response]]):
        async def endpoint(request: Request) -> Response:
            if not self._host_ok(request):
                return PlainTextResponse("unknown Host header", status_code=400)
            key, session = self._session(request)
            if session is None:
                return RedirectResponse("/login", status_code=303)
            async with self.device.open() as link:
                response = await handler(request, session, link)
            return self._with_cookie(response, key)

        return endpoint

    def action(self, handler: Callable[[dict[str, str], Session, Link], Awaitable[str]]):
        """A POST: host, sign-in and CSRF checked first; the handler answers where to go back to."""

        async def endpoint(request: Request) -> Response:
            if not self._host_ok(request):
                return PlainTextResponse("unknown Host header", status_code=400)
            key, session = self._session(request)
            if session is None:
                return RedirectResponse("/login", status_code=303)
            form = {k: str(v) for k, v in (await request.form()).items()}
            if not self.sessions.csrf_ok(session, form.get("csrf")):
                return PlainTextResponse(text(self._lang(request), "csrf.failed"), status_code=403)
            async with self.device.open() as link:
                try:
                    back = await handler(form, session, link)
                except (ValueError, KeyError) as exc:
                    note = form_problem_text(self._lang(request), exc.key, exc.values) \
                        if isinstance(exc, FormProblem) else str(exc)
                    session.flash.append(Answer("", note=note))
                    back = urlsplit(request.headers.get("referer") or "/").path or "/"  # never another site
            return self._with_cookie(RedirectResponse(back, status_code=303), key)

        return endpoint

    async def login(self, request: Request) -> Response:
        if not self._host_ok(request):
            return PlainTextResponse("unknown Host header", status_code=400)
        lang = self._lang(request)
        nonce = request.cookies.get(LOGIN_COOKIE) or ""
        wrong = False
        if request.method == "POST":
            address = request.client.host if request.client else ""
            wait = self.sessions.limiter.wait(address)
            if wait:
                return PlainTextResponse(text(lang, "login.wait").format(seconds=wait), status_code=429,
                                         headers={"Retry-After": str(wait)})
            form = await request.form()
            signed = None
            if self.sessions.login_csrf_ok(nonce, str(form.get("csrf", ""))):
                signed = self.sessions.sign_in(str(form.get("password", "")))
            if signed is not None:
                response = self._with_cookie(RedirectResponse("/", status_code=303), signed[0])
                response.delete_cookie(LOGIN_COOKIE)
                return response
            self.sessions.limiter.failed(address)
            wrong = True
        if len(nonce) != 32:
            nonce = secrets.token_hex(16)
        html = self.templates.get_template("login.html").render(
            t=lambda k: text(lang, k), lang=lang, csrf=self.sessions.login_csrf(nonce), wrong=wrong, flash=[],
            path="/login", backlog=0
        )
        response = HTMLResponse(html, status_code=401 if wrong else 200)
        response.set_cookie(LOGIN_COOKIE, nonce, httponly=True, samesite="strict")
        return response

    async def set_language(self, request: Request) -> Response:
        code = request.path_params["code"]
        back = request.query_params.get("next", "/")
        response = RedirectResponse(back if back.startswith("/") and not back.startswith("//") else "/", status_code=303)
        if code in ("zh", "en"):
            response.set_cookie(LANG_COOKIE, code, samesite="strict")
        return response

    # --- pages ----------------------------------------------------------------------------------

    async def overview(self, request: Request, session: Session, link: Link) -> Response:
        # Built from an export and typed reads, never from `read` without a type: that read tells the
        # due reminders (marks them said), and the companion must still say them to the child.
        records: list[dict[str, Any]] = []
        affection: dict[str, Any] = {}
        stats: dict[str, Any] = {}
        if link.client is not None and not link.error:
            try:
                records = await export_all(link.client)
                affection = ((await link.client.memory(action="read", type="coins")).get("items") or [{}])[0]
                stats = await link.client.sync(action="stats")
            except DeviceError as exc:
                link.error = str(exc)
        self._follow_device_language(affection.get("style"))
        clock = stats.get("clock") or {}
        self._offset = int(clock.get("utc_offset", self._offset))
        now = str(clock.get("now") or "").replace("T", " ")[:16]
        upcoming, missed = [], []
        for item in sorted((r for r in records if r.get("type") == "schedule" and not r.get("completed")),
                           key=lambda r: int(r.get("when") or 0)):
            item = dict(item, datetime=schedule_time(item, self._offset))
            (missed if now and item["datetime"] < now else upcoming).append(item)
        return self.render(request, session, "overview.html", link=link, person=person_of(records), affection=affection,
                           stats=stats, upcoming=upcoming, missed=missed, now=now, nav="overview")

    def _follow_device_language(self, style: Any) -> None:
        """The device words its stage style hint in its configured language (zh or en)."""
        if isinstance(style, str) and style:
            self.device_language = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in style) else "en"

    async def timeline(self, request: Request, session: Session, link: Link) -> Response:
        kind = request.query_params.get("type") or None
        kind = kind if kind in FILTERS else None
        keyword = (request.query_params.get("q") or "").strip() or None
        cursor = Cursor.decode(request.query_params.get("after"))
        entries, next_cursor = [], None
        if link.client is not None and not link.error:
            try:
                records = await export_all(link.client)
                offset = await self._utc_offset(link)
                entries, next_cursor = await timeline_page(link.client, records, offset, kind, keyword, cursor)
            except DeviceError as exc:
                link.error = str(exc)
        query = "&".join(f"{k}={quote(v)}" for k, v in (("type", kind), ("q", keyword)) if v)
        return self.render(request, session, "timeline.html", link=link, entries=entries, filters=FILTERS,
                           kind=kind or "", keyword=keyword or "", query=query, first_page=cursor is None,
                           next_cursor=next_cursor.encode() if next_cursor else None,
                           when=lambda at: _local_text(at, self._offset), nav="timeline")

    async def _utc_offset(self, link: Link) -> int:
        stats = await link.client.sync(action="stats")
        self._offset = int((stats.get("clock") or {}).get("utc_offset", self._offset))
        return self._offset

    async def edit(self, request: Request, session: Session, link: Link) -> Response:
        records: list[dict[str, Any]] = []
        if link.client is not None and not link.error:
            try:
                records = await export_all(link.client)
            except DeviceError as exc:
                link.error = str(exc)
        profile = {r["type"]: r for r in records if r.get("type") in PROFILE_TYPES}
        groups = {kind: [r for r in records if r.get("type") == kind] for kind in EDIT_GROUPS}
        keyed = [r for r in records if r.get("type") == "keyed"]
        return self.render(request, session, "edit.html", link=link, profile=profile, profile_types=PROFILE_TYPES,
                           groups=groups, keyed=keyed, add_types=ADD_TYPES, nav="edit")

    async def log(self, request: Request, session: Session, link: Link) -> Response:
        turns = self.review.turns(link.device_id)
        rules = self.pipelines.never.rules()
        return self.render(request, session, "log.html", link=link, turns=turns, rules=rules,
                           when=lambda at: datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S"), nav="log")

    async def profile(self, request: Request, session: Session, link: Link) -> Response:
        state = self.pipelines.profiles.get()
        return self.render(request, session, "profile.html", link=link, state=state, fields=FIELDS,
                           list_fields=LIST_FIELDS, llm_on=self.pipelines.llm.enabled, nav="profile")

    async def schedules(self, request: Request, session: Session, link: Link) -> Response:
        items: list[dict[str, Any]] = []
        now = None
        if link.client is not None and not link.error:
            try:
                items = (await link.client.memory(action="read", type="schedule")).get("items") or []
                now = str(((await link.client.sync(action="stats")).get("clock") or {}).get("now") or "")
                now = now.replace("T", " ")[:16] or None
            except DeviceError as exc:
                link.error = str(exc)
        try:
            week = int(request.query_params.get("week", "0"))
        except ValueError:
            week = 0
        today = datetime.strptime(now, "%Y-%m-%d %H:%M").date() if now else date.today()
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=week)
        days = [monday + timedelta(days=n) for n in range(7)]
        by_day: dict[str, list] = {d.isoformat(): [] for d in days}
        outside = []
        for item in sorted(items, key=lambda s: s.get("datetime", "")):
            day = item.get("datetime", "")[:10]
            (by_day[day] if day in by_day else outside).append(item)
        return self.render(request, session, "schedules.html", link=link, days=days, by_day=by_day, outside=outside,
                           week=week, today=today.isoformat(), default_time=f"{today.isoformat()}T16:00",
                           nav="schedules")

    # --- actions ----------------------------------------------------------------------------------

    async def _apply(self, session: Session, link: Link, calls: list[dict[str, Any]]) -> list[Answer]:
        answers = await self.device.change(link, calls)
        session.flash.extend(answers)
        return answers

    async def edit_add(self, form: dict[str, str], session: Session, link: Link) -> str:
        kind = form.get("type", "")
        if kind not in ADD_TYPES:
            raise ValueError(f"cannot add a {kind!r}")
        call: dict[str, Any] = {"action": "write", "type": kind}
        if kind == "family":
            call.update(relation=form.get("relation", ""), name=form.get("name", ""))
            if form.get("closeness"):
                call["closeness"] = int(form["closeness"])
        else:
            content = form.get("content", "").strip()
            call["content"] = int(content) if kind == "age" and content.isdigit() else content
            if kind == "moment" and form.get("topic"):
                call["topic"] = form["topic"]
        await self._apply(session, link, [call])
        return "/edit"

    async def edit_replace(self, form: dict[str, str], session: Session, link: Link) -> str:
        kind = form.get("type", "")
        if kind == "keyed":
            await self._keyed_put(session, link, form["key"], form["content"])
            return "/edit"
        old = {k[4:]: v for k, v in form.items() if k.startswith("old_")}
        new = {k: v for k, v in form.items() if not k.startswith("old_") and k not in ("csrf", "type")}
        calls = replace_calls(kind, old, new)
        if kind == "age":
            for call in calls:
                if str(call.get("content", "")).isdigit():
                    call["content"] = int(call["content"])
        await self._apply(session, link, calls)
        return "/edit"

    async def edit_delete(self, form: dict[str, str], session: Session, link: Link) -> str:
        kind = form.get("type", "")
        if form.get("confirmed") != "yes":
            return _confirm_url("/edit/delete", form)
        if kind == "keyed":
            await self._keyed_ops(session, link, [opslib.del_mem(form["key"])])
            return "/edit"
        record = {k[4:]: v for k, v in form.items() if k.startswith("old_")}
        await self._apply(session, link, [delete_call(kind, record)])
        return form.get("back") or "/edit"

    async def _keyed_put(self, session: Session, link: Link, key: str, payload: str) -> None:
        current = next((m for m in self.pipelines.mirror.list_keyed() if m.key == key), None)
        now = int(time.time())
        if current is None:
            built = opslib.put_mem(key, "fact", payload, 5, "user", [], 1, now, now, now)
        else:
            built = opslib.put_mem(key, current.category, payload, current.importance, current.source, current.tags,
                                   current.trigger_count, current.created_at, now, current.last_triggered)
        await self._keyed_ops(session, link, [built.op])

    async def _keyed_ops(self, session: Session, link: Link, ops: list[dict[str, Any]]) -> None:
        calls = [{"_tool": "memory_sync", "action": "apply", "batch_id": opslib.new_batch_id("dashboard"), "ops": [op]}
                 for op in ops]
        answers = await self._apply(session, link, calls)
        if not any(a.refusal for a in answers):
            self.pipelines.mirror.apply_ops(ops)

    async def log_verdict(self, form: dict[str, str], session: Session, link: Link) -> str:
        ref, verdict = form.get("ref", ""), form.get("verdict", "")
        item = self.review.find(ref, link.device_id)
        if item is None:
            raise ValueError(f"no extracted memory {ref!r} in this device's log")
        content = form.get("content", "").strip() or item.text
        answers: list[Answer] = []
        if item.memory is not None:  # a deep-channel memory, waiting in working memory
            if verdict == "rejected":
                self.pipelines.working.remove(str(item.memory.get("id")))
                self.pipelines.snapshot.save(self.pipelines.working)
            else:
                answers = await self._apply(session, link, [{"action": "write", "type": "fact", "content": content}])
        elif item.op is not None and item.op.get("op") in ("write", "put_mem") and verdict != "accepted":
            # Only what this entry wrote, and only while it is still there: the device checks and
            # changes in one op (memory_sync retract), so a later correction is never lost.
            answers = await self._retract(session, link, item, content if verdict == "edited" else None)
            if any(a.result == "CHANGED" or a.refusal for a in answers):
                return "/log"  # nothing changed: the entry stays open for another verdict
        self.review.mark(ref, verdict, content if verdict == "edited" else None,
                         "; ".join(a.result or a.refusal or "queued" for a in answers) or None)
        if verdict == "rejected" and not answers:
            session.flash.append(Answer(item.text, result="REJECTED"))
        return "/log"

    async def _retract(self, session: Session, link: Link, item: Any, replace: str | None) -> list[Answer]:
        op = retract_op(item.op, replace)
        calls = [{"_tool": "memory_sync", "action": "apply", "batch_id": opslib.new_batch_id("dashboard"), "ops": [op]}]
        answers = await self.device.change(link, calls)
        for answer in answers:
            answer.what = item.text
        session.flash.extend(answers)
        if item.op.get("op") == "put_mem" and any(a.result in ("DELETED", "UPDATED") for a in answers):
            key = item.op["key"]
            if replace is None:
                self.pipelines.mirror.apply_ops([opslib.del_mem(key)])
            else:
                current = next((m for m in self.pipelines.mirror.list_keyed() if m.key == key), None)
                if current is not None:
                    now = int(time.time())
                    built = opslib.put_mem(key, current.category, replace, current.importance, current.source,
                                           current.tags, current.trigger_count + 1, current.created_at, now, now)
                    self.pipelines.mirror.apply_ops([built.op])
        return answers

    async def never_add(self, form: dict[str, str], session: Session, link: Link) -> str:
        topic = form.get("topic", "")
        added = self.pipelines.never.add(topic)
        session.flash.append(Answer(topic.strip(), result="ADDED" if added else "NOOP"))
        return "/log"

    async def never_remove(self, form: dict[str, str], session: Session, link: Link) -> str:
        removed = self.pipelines.never.remove(form.get("topic", ""))
        session.flash.append(Answer(form.get("topic", ""), result="DELETED" if removed else "NOOP"))
        return "/log"

    async def profile_set(self, form: dict[str, str], session: Session, link: Link) -> str:
        name = form.get("field", "")
        value: Any = form.get("value", "")
        if name in LIST_FIELDS:
            value = [v.strip() for v in value.replace("；", ";").split(";") if v.strip()]
        self.pipelines.profiles.set_manual(name, value)
        session.flash.append(Answer("profile.field." + name, result="UPDATED"))
        return "/profile"

    async def profile_clear(self, form: dict[str, str], session: Session, link: Link) -> str:
        self.pipelines.profiles.clear_manual(form.get("field", ""))
        session.flash.append(Answer("profile.field." + form.get("field", ""), result="DELETED"))
        return "/profile"

    async def profile_refresh(self, form: dict[str, str], session: Session, link: Link) -> str:
        result = await self.pipelines.refresh_profile(force=True)
        if result is None or result.skipped:
            session.flash.append(Answer("", result="NOT_SYNTHESIZED", detail={"why": result.skipped if result else ""}))
        elif result.errors:
            session.flash.append(Answer("profile", note="; ".join(result.errors)))
        for batch in result.batches if result else []:
            calls = [{"_tool": "memory_sync", "action": "apply", "batch_id": batch.batch_id, "ops": batch.ops}]
            await self._apply(session, link, calls)
        return "/profile"

    async def schedule_add(self, form: dict[str, str], session: Session, link: Link) -> str:
        await self._apply(session, link, [schedule_call(form)])
        return "/schedules" + (f"?week={form['week']}" if form.get("week") else "")

    async def schedule_complete(self, form: dict[str, str], session: Session, link: Link) -> str:
        await self._apply(session, link, [_one_schedule("complete_schedule", form)])
        return "/schedules"

    async def schedule_delete(self, form: dict[str, str], session: Session, link: Link) -> str:
        if form.get("confirmed") != "yes":
            return _confirm_url("/schedules/delete", dict(form, type="schedule"))
        await self._apply(session, link, [dict(_one_schedule("delete", form), type="schedule")])
        return "/schedules"

    async def confirm(self, request: Request, session: Session, link: Link) -> Response:
        """The step before a delete: what will go, and a button that sends the delete itself."""
        fields = {k: v for k, v in request.query_params.items() if k not in ("to", "csrf", "confirmed")}
        to = request.query_params.get("to", "")
        if to not in CONFIRMED:
            return PlainTextResponse(f"nothing to confirm at {to!r}", status_code=400)
        lang = self._lang(request)
        kind = fields.get("type", "")
        shown = [text(lang, "kind." + kind)] + [fields[k] for k in CONFIRM_SHOWN if fields.get(k)]
        return self.render(request, session, "confirm.html", link=link, to=to, fields=sorted(fields.items()),
                           what=" ".join(shown), back=CONFIRMED[to], nav="")


def person_of(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The person as an export holds them: profile fields, likes, dislikes, family, mood."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_type.setdefault(str(record.get("type")), []).append(record)
    affection = (by_type.get("affection") or [{}])[0]
    return {
        "profile": {kind: by_type[kind][0]["content"] for kind in PROFILE_TYPES if by_type.get(kind)},
        "likes": [r["content"] for r in by_type.get("like", [])],
        "dislikes": [r["content"] for r in by_type.get("dislike", [])],
        "family": by_type.get("family", []),
        "mood": affection.get("mood", ""),
    }


def _one_schedule(action: str, form: dict[str, str]) -> dict[str, Any]:
    """A schedule call naming one schedule exactly: its text and the time it starts (two may share a text)."""
    call: dict[str, Any] = {"action": action, "content": form.get("content", "")}
    if form.get("datetime"):
        call["datetime"] = form["datetime"].replace("T", " ")[:16]
    return call


def _confirm_url(to: str, form: dict[str, str]) -> str:
    fields = {k: v for k, v in form.items() if k not in ("csrf", "confirmed")}
    return "/confirm?" + urlencode({"to": to, **fields})


def said(answer: Answer, t: Callable[[str], str]) -> str:
    """The change an answer is about, in the page's language ("删除 家人 爸爸 王强")."""
    call = answer.call or {}
    if answer.what.startswith("profile.field."):
        return t(answer.what)
    if call.get("action") not in ("write", "delete", "complete_schedule"):
        return answer.what
    parts = [t("action." + call["action"])]
    if call.get("type"):
        parts.append(t("kind." + call["type"]))
    parts += [str(call[k]) for k in ("relation", "name", "topic", "content", "datetime") if call.get(k) not in (None, "")]
    return " ".join(parts)


def _local_text(at: int, utc_offset: int) -> str:
    if not at:
        return "—"
    return (datetime.utcfromtimestamp(at) + timedelta(seconds=utc_offset)).strftime("%Y-%m-%d %H:%M")
