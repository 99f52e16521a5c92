"""Pipeline commands: sieve, reflect, profile, log."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from xzmem.config import Config, ConfigError, load_config
from xzmem.db import open_db
from xzmem.llm import LLM_OFF_MESSAGE, LLMClient
from xzmem.pipelines.conversation import ConversationError, load_conversation
from xzmem.pipelines.extraction_log import ExtractionLog, deep_tag
from xzmem.pipelines.profile import FIELDS, LIST_FIELDS
from xzmem.pipelines.runner import ExchangeOutcome, Pipelines, ReflectOutcome

commands = typer.Typer()

console = Console()
err_console = Console(stderr=True)
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="config file (default $XZMEM_CONFIG or ~/.config/xzmem/config.toml)")
]


STAGES = ("sieve", "changes", "reflect", "profile")


def _fail(message: str, code: int = 1) -> None:
    err_console.print(Text("xzmem: ", style="red") + Text(" ".join(message.split())), soft_wrap=True)
    raise typer.Exit(code)


def _pipelines(config: Path | None) -> tuple[Config, Pipelines]:
    try:
        cfg = load_config(config)
    except ConfigError as e:
        _fail(str(e))
    llm = LLMClient(cfg.llm)
    if not llm.enabled:
        err_console.print(LLM_OFF_MESSAGE, style="yellow", markup=False, highlight=False)
    return cfg, Pipelines(cfg, open_db(cfg.data_path), llm)


def _ops_table(title: str, ops: list[dict]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("op")
    table.add_column("what")
    for op in ops:
        rest = {k: v for k, v in op.items() if k not in ("op",)}
        table.add_row(op["op"], Text(json.dumps(rest, ensure_ascii=False)))
    return table


def _render_exchange(outcome: ExchangeOutcome) -> None:
    sieve, changes = outcome.sieve, outcome.changes
    if outcome.profile is not None and outcome.profile.data is not None:
        console.print(Text(f"profile re-synthesized: {outcome.profile.data['summary']}"))
    if sieve.signals:
        console.print(Text("fast channel: " + ", ".join(f"{s.category}「{s.sentence}」" for s in sieve.signals)))
    if sieve.fast_ops:
        console.print(_ops_table("device writes (fast channel)", sieve.fast_ops))
    if sieve.skipped:
        console.print(f"deep channel skipped: {sieve.skipped}")
    if sieve.extracted:
        table = Table(title="working memory (deep channel)", title_justify="left")
        for col in ("category", "importance", "source", "content"):
            table.add_column(col)
        for item in sieve.extracted:
            table.add_row(item.category, f"{item.importance:.2f}", item.source, Text(item.content))
        console.print(table)
    if sieve.deep_ops:
        console.print(_ops_table("device writes (deep channel: dated events)", sieve.deep_ops))
    if changes.ops:
        console.print(_ops_table("keyed memory changes", changes.ops))
    for r in changes.refusals:
        console.print(Text("refused ", style="yellow") + Text(f"{r.action} {r.key}: {r.reason}"))
    for note in changes.notes:
        console.print(Text(f"note: {note}"))
    profile_errors = outcome.profile.errors if outcome.profile is not None else []
    for e in profile_errors + sieve.errors + changes.errors:
        err_console.print(Text("warning: ", style="yellow") + Text(e))
    if not outcome.batches:
        console.print("nothing to send to the device")
    console.print("logged as extraction log entries {}".format(", ".join(map(str, outcome.log_ids))))


def _exchange_json(outcome: ExchangeOutcome) -> dict:
    sieve, changes = outcome.sieve, outcome.changes
    return {
        "signals": [asdict(s) for s in sieve.signals],
        "fast_ops": sieve.fast_ops,
        "working_memories": [m.to_record() for m in sieve.extracted],
        "deep_ops": sieve.deep_ops,
        "deep_skipped": sieve.skipped,
        "fallback": sieve.fallback,
        "changes": {
            "ops": changes.ops,
            "refusals": [asdict(r) for r in changes.refusals],
            "notes": changes.notes,
            "skipped": changes.skipped,
            "shown_keys": changes.shown_keys,
        },
        "profile": None if outcome.profile is None else {"data": outcome.profile.data, "errors": outcome.profile.errors},
        "batches": [b.to_json() for b in outcome.batches],
        "errors": (outcome.profile.errors if outcome.profile is not None else []) + sieve.errors + changes.errors,
        "prompt_tokens": {"sieve": sieve.prompt_tokens, "changes": changes.prompt_tokens},
        "log_ids": outcome.log_ids,
    }


@commands.command()
def sieve(
    user: Annotated[str, typer.Option("--user", help="what the user said")],
    assistant: Annotated[str, typer.Option("--assistant", help="what the assistant answered")] = "",
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    config: ConfigOption = None,
) -> None:
    """Run the Memory Sieve and change detection on one exchange; print the memories and device ops."""
    _, pipelines = _pipelines(config)
    outcome = asyncio.run(pipelines.exchange(user, assistant))
    if as_json:
        sys.stdout.write(json.dumps(_exchange_json(outcome), ensure_ascii=False, indent=2) + "\n")
    else:
        _render_exchange(outcome)


def _reflect_json(outcome: ReflectOutcome) -> dict:
    r = outcome.reflection
    return {
        "soul_state_code": r.soul_state_code,
        "recalled_keys": r.recalled_keys,
        "ops": r.ops,
        "refusals": [asdict(x) for x in r.refusals],
        "notes": r.notes,
        "errors": r.errors,
        "skipped": r.skipped,
        "batches": [b.to_json() for b in outcome.batches],
        "prompt_tokens": r.prompt_tokens,
        "log_ids": outcome.log_ids,
    }


@commands.command("reflect")
def reflect_command(
    conversation: Annotated[Path, typer.Option("--conversation", help="JSON messages or user:/assistant: lines")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    config: ConfigOption = None,
) -> None:
    """Reflect on a finished conversation: useful memories, merges, new memories, soul state."""
    try:
        messages, recalled = load_conversation(conversation)
    except ConversationError as e:
        _fail(str(e))
    _, pipelines = _pipelines(config)
    outcome = asyncio.run(pipelines.reflect(messages, recalled))
    r = outcome.reflection
    if as_json:
        sys.stdout.write(json.dumps(_reflect_json(outcome), ensure_ascii=False, indent=2) + "\n")
        return
    if r.soul_state_code:
        console.print(f"soul_state_code: {r.soul_state_code}")
    if r.ops:
        console.print(_ops_table("device ops (reflection)", r.ops))
    for x in r.refusals:
        console.print(Text("refused ", style="yellow") + Text(f"{x.what}: {x.reason}"))
    for note in r.notes:
        console.print(Text(f"note: {note}"))
    for e in r.errors:
        err_console.print(Text("warning: ", style="yellow") + Text(e))
    if r.skipped:
        console.print(f"reflection skipped: {r.skipped}")
    console.print("logged as extraction log entry {}".format(", ".join(map(str, outcome.log_ids))))


@commands.command("profile")
def profile_command(
    set_field: Annotated[
        list[str] | None, typer.Option("--set", help="hand edit FIELD=VALUE (list fields: items split by ';')")
    ] = None,
    clear: Annotated[list[str] | None, typer.Option("--clear", help="drop the hand edit of FIELD")] = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="synthesize again from the core memories now")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    config: ConfigOption = None,
) -> None:
    """Show the user profile the sieve uses; edit fields by hand (kept across re-synthesis)."""
    _, pipelines = _pipelines(config)
    store = pipelines.profiles
    try:
        for item in set_field or []:
            name, sep, value = item.partition("=")
            if not sep:
                _fail(f"--set needs FIELD=VALUE, got {item!r}")
            store.set_manual(name, [v.strip() for v in value.split(";") if v.strip()] if name in LIST_FIELDS else value)
        for name in clear or []:
            store.clear_manual(name)
    except ValueError as e:
        _fail(str(e))
    result = asyncio.run(pipelines.refresh_profile(force=True)) if refresh else None
    state = store.get()
    if as_json:
        out = {"effective": state.effective, "manual": state.manual, "stale": state.stale,
               "errors": result.errors if result else [], "skipped": result.skipped if result else None,
               "batches": [b.to_json() for b in result.batches] if result else []}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return
    if result is not None and result.skipped:
        console.print(Text(f"not synthesized: {result.skipped}"))
    for e in result.errors if result else []:
        err_console.print(Text("warning: ", style="yellow") + Text(e))
    if state.effective is None:
        console.print("no profile yet")
        return
    table = Table(title="user profile" + (" (stale)" if state.stale else ""), title_justify="left")
    table.add_column("field")
    table.add_column("value")
    table.add_column("source")
    for name in FIELDS:
        value = state.effective[name]
        shown = "; ".join(value) if isinstance(value, list) else value
        table.add_row(name, Text(shown), "manual" if name in state.manual else "synthesized" if state.synthesized else "")
    console.print(table)


@commands.command("log")
def log_command(
    limit: Annotated[int, typer.Option("--limit", help="entries to show, newest first")] = 10,
    stage: Annotated[str | None, typer.Option("--stage", help="sieve, changes, reflect, profile or promote")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    config: ConfigOption = None,
) -> None:
    """Review the extraction log: each stage's input, raw LLM output, parsed result and errors."""
    if stage is not None and stage not in STAGES:
        _fail(f"unknown stage {stage!r}; use one of: {', '.join(STAGES)}")
    try:
        cfg = load_config(config)
    except ConfigError as e:
        _fail(str(e))
    entries = ExtractionLog(open_db(cfg.data_path)).recent(limit, stage)
    if as_json:
        sys.stdout.write(json.dumps([asdict(e) for e in entries], ensure_ascii=False, indent=2) + "\n")
        return
    for e in entries:
        when = datetime.fromtimestamp(e.at).strftime("%Y-%m-%d %H:%M:%S")
        console.print(Text(f"#{e.id} {when} {e.stage}", style="bold"))
        console.print(Text("input: " + json.dumps(e.input, ensure_ascii=False)[:300]))
        if e.raw_output is not None:
            console.print(Text("raw: " + e.raw_output[:500]))
        if e.stage == "sieve" and isinstance(e.parsed, dict):
            for memory in e.parsed.get("extracted") or []:
                console.print(Text(f"  {deep_tag(memory)} {memory.get('content', '')}"))
        for err in e.errors:
            console.print(Text("error: ", style="yellow") + Text(err))
        if e.batch_ids:
            console.print(Text("batches: " + ", ".join(e.batch_ids)))
