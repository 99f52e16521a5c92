"""`xzmem` commands that read and change a device's memory, and the outbox and config commands.

Each command resolves the device (option > environment > config file), calls the device or the
outbox, and renders the answer: rich tables for people, `--json` for scripts. Every failure is one
line on stderr and exit code 1.
"""

from __future__ import annotations

import json
import os
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table

from xzmem.cli.common import (
    CliProblem,
    DeviceOpt,
    DeviceSettings,
    TokenOpt,
    one_line_errors,
    read_config_file,
    resolve_settings,
    say,
    stderr,
    stdout,
    url_token,
    with_device,
)
from xzmem.config import config_path
from xzmem.device.address import redact
from xzmem.device.client import (
    MEMORY_TYPES,
    RECALL_TYPES,
    DeviceClient,
    DeviceError,
)
from xzmem.device.outbox import Batch, Outbox
from xzmem.device.transfer import (
    config_differences,
    export_records,
    import_records,
    read_backup,
    read_export,
    summarize_import,
    write_export,
)

commands = typer.Typer()

def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _table(title: str | None, **options: Any) -> Table:
    # A title wider than the table would wrap inside it; the table grows to fit it instead.
    return Table(title=title, title_justify="left", min_width=len(title or "") + 2, **options)


def _rows_table(rows: list[dict[str, Any]], title: str | None = None) -> Table:
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    table = _table(title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in columns))
    return table


_MAX_COLUMNS = 6  # more than this, and a table wider than the terminal is shown record by record


def _natural_width(rows: list[dict[str, Any]]) -> int:
    """Cells a table of `rows` needs to show every header and value uncut, on one line each."""
    columns: dict[str, int] = {}
    for row in rows:
        for key, value in row.items():
            columns[key] = max(columns.get(key, cell_len(key)), cell_len(_cell(value)))
    return sum(columns.values()) + 3 * len(columns) + 1


def _render(console: Console, data: Any, title: str | None = None) -> None:
    """Lists of dicts as tables, dicts as key/value tables with their nested parts after them."""
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        table = _rows_table(data, title)
        if len(table.columns) <= _MAX_COLUMNS or _natural_width(data) <= console.width:
            console.print(table)
        else:  # too many fields to read across (a schedule's ten): one key/value table per record
            for i, row in enumerate(data, 1):
                _render(console, row, f"{title} {i}" if title else str(i))
    elif isinstance(data, list):
        console.print(f"{title}: " if title else "", ", ".join(_cell(v) for v in data) or "(none)", sep="")
    elif isinstance(data, dict):
        table = _table(title, show_header=False)
        table.add_column(style="bold")
        table.add_column()
        nested = []
        for key, value in data.items():
            if isinstance(value, dict) or (isinstance(value, list) and value and isinstance(value[0], dict)):
                nested.append((key, value))
            else:
                table.add_row(str(key), ", ".join(map(_cell, value)) if isinstance(value, list) else _cell(value))
        if table.row_count:
            console.print(table)
        for key, value in nested:
            _render(console, value, f"{title}.{key}" if title else key)
    else:
        console.print(_cell(data))


KEYED = "keyed"


def _check_type(kind: str, allowed: tuple[str, ...], what: str = "memory type") -> str:
    if kind not in allowed:
        raise CliProblem(f"unknown {what} {kind!r}; use one of: {', '.join(allowed)}")
    return kind


def _check_date(value: str | None, option: str) -> str | None:
    if value is not None:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise CliProblem(f"{option} must be a date YYYY-MM-DD, got {value!r}") from None
    return value


JsonOpt = Annotated[bool, typer.Option("--json", help="Print the device's JSON instead of tables.")]


# --- reading memory ----------------------------------------------------------------------------


_TIME_KEYS = ("learned_at", "when", "completed_at", "last_interaction", "created_at", "updated_at", "last_triggered")


def _local_times(data: Any, offset: int) -> Any:
    """`data` with its Unix-second times (learned_at, when, ...) as the device's local times."""
    if isinstance(data, list):
        return [_local_times(item, offset) for item in data]
    if not isinstance(data, dict):
        return data
    zone = timezone(timedelta(seconds=offset))
    out = {}
    for key, value in data.items():
        if (key in _TIME_KEYS or key.endswith("_learned_at")) and isinstance(value, int) and value > 0:
            out[key] = datetime.fromtimestamp(value, zone).strftime("%Y-%m-%d %H:%M")
        else:
            out[key] = _local_times(value, offset)
    return out


def _without_empty(data: Any) -> Any:
    """A dict without its empty sections (no table of blank rows for memories not yet learned)."""
    if not isinstance(data, dict):
        return data
    kept = {k: _without_empty(v) for k, v in data.items()}
    return {k: v for k, v in kept.items() if v not in (None, "", [], {})}


async def _device_offset(client: DeviceClient) -> int:
    """The device's UTC offset in seconds (its stats say); this computer's when it cannot tell."""
    try:
        stats = await client.call("memory_sync", {"action": "stats"})
        return int(stats["clock"]["utc_offset"])
    except (DeviceError, KeyError, TypeError, ValueError):
        return time.localtime().tm_gmtoff


@commands.command()
def inspect(
    type_: Annotated[str | None, typer.Argument(metavar="[TYPE]", help="One memory type (fact, family, like, ...).")] = None,
    device: DeviceOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show what the device remembers: everything, or one TYPE (`keyed`: the host's keyed memories)."""
    with one_line_errors():
        args = {"action": "read"}
        if type_ is not None and type_ != KEYED:
            args["type"] = _check_type(type_, (*MEMORY_TYPES, KEYED))

        async def work(client: DeviceClient) -> tuple[Any, list[dict[str, Any]], int]:
            data = await client.call("memory", args) if type_ != KEYED else None
            keyed = await _keyed_memories(client) if type_ in (None, KEYED) else []
            return data, keyed, (0 if as_json else await _device_offset(client))

        data, keyed, offset = with_device(resolve_settings(device, token), work)
        if type_ == KEYED:
            if as_json:
                _print_json(keyed)
            else:
                _render(stdout(), _local_times(keyed, offset) or [], title=KEYED)
        elif as_json:
            _print_json(dict(data, keyed_memories=keyed) if type_ is None and isinstance(data, dict) else data)
        elif type_ is not None and isinstance(data, dict) and "items" in data:
            _render(stdout(), _local_times(data["items"], offset) or [], title=type_)
        else:
            shown = _without_empty(_local_times(data, offset))
            _render(stdout(), shown or "the device remembers nothing yet", title="memory")
            if keyed:
                _render(stdout(), _local_times(keyed, offset), title="keyed memories")


async def _keyed_memories(client: DeviceClient) -> list[dict[str, Any]]:
    """The host's keyed memories on the device (from its export pages), each without its type."""
    records = await export_records(client)
    return [{k: v for k, v in r.items() if k != "type"} for r in records if r.get("type") == KEYED]


@commands.command()
def recall(
    type_: Annotated[str, typer.Option("--type", help="fact, moment or event.", show_default=False)],
    keyword: Annotated[str | None, typer.Option("--keyword", "-k", help="Case-insensitive substring.")] = None,
    start: Annotated[str | None, typer.Option("--start", help="From this date, YYYY-MM-DD.")] = None,
    end: Annotated[str | None, typer.Option("--end", help="Up to this date, YYYY-MM-DD.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=50, help="At most this many.")] = 10,
    device: DeviceOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search the device's archive of facts, moments and events."""
    with one_line_errors():
        args: dict[str, Any] = {"action": "recall", "type": _check_type(type_, RECALL_TYPES, "recall type"), "limit": limit}
        if keyword:
            args["keyword"] = keyword
        if _check_date(start, "--start"):
            args["start_date"] = start
        if _check_date(end, "--end"):
            args["end_date"] = end
        data = with_device(resolve_settings(device, token), lambda c: c.call("memory", args))
        if as_json:
            _print_json(data)
            return
        items = data.get("items", []) if isinstance(data, dict) else data
        console = stdout()
        _render(console, items or [], title=f"{type_} ({data.get('count', len(items))} found)")


@commands.command()
def schedules(device: DeviceOpt = None, token: TokenOpt = None, as_json: JsonOpt = False) -> None:
    """List the device's schedules and reminders."""
    with one_line_errors():
        data = with_device(
            resolve_settings(device, token), lambda c: c.call("memory", {"action": "read", "type": "schedule"})
        )
        if as_json:
            _print_json(data)
            return
        items = sorted(data.get("items", []), key=lambda s: str(s.get("datetime", "")))
        if items:
            _render(stdout(), items, title="schedules")
        else:
            say("no schedules")


@commands.command()
def stats(device: DeviceOpt = None, token: TokenOpt = None, as_json: JsonOpt = False) -> None:
    """Storage figures from the device: NVS entries, archive bytes and counts, flash writes."""
    with one_line_errors():
        data = with_device(resolve_settings(device, token), lambda c: c.call("memory_sync", {"action": "stats"}))
        if as_json:
            _print_json(data)
        else:
            _render(stdout(), data, title="stats")


# --- changing memory ---------------------------------------------------------------------------


@commands.command()
def forget(
    type_: Annotated[str, typer.Argument(metavar="TYPE", help="Memory type (fact, like, schedule, family, ...).")],
    content: Annotated[str | None, typer.Argument(help="The text to forget, as the device stores it.")] = None,
    relation: Annotated[str | None, typer.Option("--relation", help="Family: the relation (妈妈, brother).")] = None,
    name: Annotated[str | None, typer.Option("--name", help="Family: the member's name.")] = None,
    when: Annotated[str | None, typer.Option(
        "--datetime", help="Schedule: when it starts, 'YYYY-MM-DD HH:MM' (two schedules may share a text).")] = None,
    device: DeviceOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Delete one memory from the device."""
    with one_line_errors():
        args: dict[str, Any] = {"action": "delete", "type": _check_type(type_, MEMORY_TYPES)}
        if content is not None:
            args["content"] = content
        if relation is not None:
            args["relation"] = relation
        if name is not None:
            args["name"] = name
        if when is not None:
            if type_ != "schedule":
                raise CliProblem("--datetime names a schedule; it is only for `forget schedule`")
            try:
                datetime.strptime(when, "%Y-%m-%d %H:%M")
            except ValueError:
                raise CliProblem(f"--datetime must be 'YYYY-MM-DD HH:MM', got {when!r}") from None
            args["datetime"] = when
        if content is None and not (type_ == "family" and (relation or name)):
            raise CliProblem("say what to forget: CONTENT (or --relation/--name for family)")
        data = with_device(resolve_settings(device, token), lambda c: c.call("memory", args))
        if as_json:
            _print_json(data)
        elif isinstance(data, dict) and "result" in data:
            what = content if content is not None else " ".join(filter(None, (relation, name)))
            at = f" at {when}" if when else ""
            outcome = "forgotten" if data["result"] == "DELETED" else "nothing matched"
            say(f"{type_} {what!r}{at}: {outcome} ({data['result']})")
        else:
            _render(stdout(), data)


# --- export and import -------------------------------------------------------------------------


def _progress(console: Console, total: int | None) -> Progress:
    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is None:
        columns.append(TextColumn("{task.completed:.0f}"))
    else:
        columns += [BarColumn(), MofNCompleteColumn()]
    return Progress(*columns, console=console, disable=not console.is_terminal)  # a log gets no bar


def _check_writable(file: Path, force: bool) -> None:
    if file.exists() and not force:
        raise CliProblem(f"{file} exists; pass --force to overwrite it")
    folder = file.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        # said before the device is asked for anything: a long export must not end here
        raise CliProblem(f"cannot write {file}: folder {folder} {'is not writable' if folder.is_dir() else 'does not exist'}")


async def _export(client: DeviceClient, archive: bool) -> tuple[str, list[dict[str, Any]]]:
    device_id = await client.device_id()
    with _progress(stderr(), None) as progress:
        task = progress.add_task("exporting records", total=None)
        records = await export_records(client, lambda n: progress.advance(task, n), archive)
    return device_id, records


ForceOpt = Annotated[bool, typer.Option("--force", "-f", help="Overwrite FILE if it exists.")]


@commands.command("export")
def export_(
    file: Annotated[Path, typer.Argument(help="Where to write the export (JSON).", dir_okay=False)],
    force: ForceOpt = False,
    archive: Annotated[
        bool, typer.Option("--archive", help="Also save the archive (older facts, moments, events), paged.")
    ] = False,
    device: DeviceOpt = None,
    token: TokenOpt = None,
) -> None:
    """Save all of the device's memory to FILE (a full backup with --archive)."""
    with one_line_errors():
        _check_writable(file, force)
        device_id, records = with_device(resolve_settings(device, token), lambda c: _export(c, archive))
        write_export(file, device_id, records)
        say(f"exported {len(records)} records from {device_id} to {file}")


@commands.command()
def backup(
    file: Annotated[Path, typer.Argument(help="Where to write the backup (JSON).", dir_okay=False)],
    force: ForceOpt = False,
    device: DeviceOpt = None,
    token: TokenOpt = None,
) -> None:
    """Save everything the device remembers (hot store, keyed, archive, schedules, affection) and its
    config without secrets into one FILE, before an upgrade; `xzmem restore FILE` puts it back."""
    with one_line_errors():
        _check_writable(file, force)

        async def work(client: DeviceClient) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
            device_id, records = await _export(client, archive=True)
            return device_id, records, await client.sync(action="config")

        device_id, records, config = with_device(resolve_settings(device, token), work)
        write_export(file, device_id, records, config=config)
        say(f"backed up {len(records)} records and the config (without its secrets) of {device_id} to {file}")


def _import_file(file: Path, records: list[dict[str, Any]], settings: DeviceSettings, as_json: bool,
                 after: Any = None) -> Any:
    """Import `records` from `file`, report it, and fail when the device refused some; `after(client)`
    runs on the same connection once the records are in, and its answer is returned."""

    async def work(client: DeviceClient) -> tuple[list[dict[str, Any]], Any]:
        with _progress(stderr(), len(records)) as progress:
            task = progress.add_task("importing records", total=len(records))
            answers = await import_records(client, records, lambda n: progress.advance(task, n))
        return answers, (await after(client) if after is not None else None)

    answers, extra = with_device(settings, work)
    tally, replayed, refused = summarize_import(answers)
    if as_json:
        _print_json(answers)
    else:
        parts = [f"{n} {kind}" for kind, n in sorted(tally.items())]
        if replayed:
            parts.append(f"{replayed} of {len(answers)} chunks already imported")
        say(f"imported {len(records)} records from {file}: {', '.join(parts) or 'no results'}")
        for index, kind, reason in refused:
            say(f"  refused records[{index}] ({kind}): {reason}")
    if refused:
        raise CliProblem(f"{len(refused)} of {len(records)} records were refused (listed above); the rest are stored")
    return extra


@commands.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="An export written by `xzmem export`.", dir_okay=False)],
    device: DeviceOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load an export FILE into the device (records it already has change nothing)."""
    with one_line_errors():
        records = read_export(file)
        if not records:
            say(f"{file} holds no records; nothing to import")
            return
        _import_file(file, records, resolve_settings(device, token), as_json)


@commands.command()
def restore(
    file: Annotated[Path, typer.Argument(help="A backup written by `xzmem backup`.", dir_okay=False)],
    device: DeviceOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Put a backup FILE back on a device: every memory, then its config compared with the saved one."""
    with one_line_errors():
        records, config = read_backup(file)
        if config is None:
            raise CliProblem(f"{file} is an export, not a backup (no config); load it with `xzmem import`")
        now = _import_file(file, records, resolve_settings(device, token), as_json,
                           after=lambda client: client.sync(action="config")) if records else None
        if now is None:
            now = with_device(resolve_settings(device, token), lambda c: c.sync(action="config"))
        differences = config_differences(config, now)
        if not differences:
            say("the device's config matches the backup's (its secrets are never saved)")
        for key, current, saved in differences:
            say(f"  config {key}: the device has {current!r}, the backup {saved!r}; "
                "set it with `xzmem deploy` (see docs/cli.md, Upgrading)")


# --- outbox ------------------------------------------------------------------------------------


def _batch_row(batch: Batch, now: float) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    for op in batch.ops:
        kinds[op.get("op", "?")] = kinds.get(op.get("op", "?"), 0) + 1
    return {
        "device": batch.device_id,
        "seq": batch.seq,
        "batch_id": batch.batch_id,
        "ops": ", ".join(f"{n} {k}" for k, n in kinds.items()),
        "age": f"{max(0, int(now - batch.created_at))} s",
        "attempts": batch.attempts,
        "last_error": batch.last_error or "",
    }


def _batch_json(batch: Batch) -> dict[str, Any]:
    return {
        "device_id": batch.device_id, "seq": batch.seq, "batch_id": batch.batch_id, "ops": batch.ops,
        "created_at": batch.created_at, "attempts": batch.attempts, "last_error": batch.last_error,
    }


@commands.command()
def outbox(
    send: Annotated[bool, typer.Option("--send", help="Send the device's pending batches now, in order.")] = False,
    drop: Annotated[str | None, typer.Option("--drop", metavar="BATCH_ID", help="Give up on one pending batch.")] = None,
    device_id: Annotated[str | None, typer.Option("--device-id", help="Only this device's batches.")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="Outbox file; default DATA_DIR/outbox.sqlite3.")] = None,
    device: DeviceOpt = None,
    token: TokenOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the op batches waiting for a device; --send delivers them, --drop discards one."""
    with one_line_errors():
        settings = resolve_settings(device, token)
        path = file or settings.data_dir / "outbox.sqlite3"
        if not path.exists() and not send:
            batches: list[Batch] = []
        else:
            with Outbox(path) as box:
                if drop is not None:
                    if not box.drop(drop):
                        raise CliProblem(f"no pending batch {drop!r} in {path}")
                    say(f"dropped batch {drop}")
                    return
                if send:
                    _send_outbox(box, settings, device_id)
                    return
                batches = box.pending(device_id)
        if as_json:
            _print_json([_batch_json(b) for b in batches])
        elif batches:
            now = time.time()
            stdout().print(_rows_table([_batch_row(b, now) for b in batches], title=f"pending batches ({path})"))
        else:
            say("no pending batches")


def _send_outbox(box: Outbox, settings: DeviceSettings, device_id: str | None) -> None:
    async def work(client: DeviceClient):
        target_id = device_id or await client.device_id()
        total = len(box.pending(target_id))
        with _progress(stderr(), total) as progress:
            task = progress.add_task(f"sending to {target_id}", total=total)
            return await box.drain(client, target_id, on_batch=lambda _: progress.advance(task))

    report = with_device(settings, work)
    sent = len(report.acked) + len(report.replayed)
    line = f"sent {sent} batches to {report.device_id} ({len(report.replayed)} the device already had)"
    say(line)
    if report.error:
        raise CliProblem(f"{report.pending} batches still pending: {report.error}")


# --- config ------------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise CliProblem(f"cannot write {type(value).__name__} values to the config file")


def dump_toml(config: dict[str, Any]) -> str:
    """TOML for a config of scalars, lists and tables (nested tables become [a.b] headers)."""
    lines: list[str] = []

    def table(prefix: str, values: dict[str, Any]) -> None:
        plain = {k: v for k, v in values.items() if not isinstance(v, dict)}
        if prefix and (plain or not values):
            lines.append(f"\n[{prefix}]")
        lines.extend(f"{json.dumps(k) if not k.isidentifier() else k} = {_toml_value(v)}" for k, v in plain.items())
        for key, value in values.items():
            if isinstance(value, dict):
                table(f"{prefix}.{key}" if prefix else key, value)

    table("", config)
    return "\n".join(lines).lstrip("\n") + "\n"


@commands.command()
def config(
    set_device: Annotated[str | None, typer.Option("--device", "-d", help="Save this device address.")] = None,
    set_token: Annotated[str | None, typer.Option("--token", "-t", help="Save this device token.")] = None,
    set_data_dir: Annotated[str | None, typer.Option("--data-dir", help="Save this host data directory.")] = None,
    check: Annotated[bool, typer.Option("--check", help="Check the file and reach the device it names.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Show the host config file, save device settings into it (--device/--token), or --check it."""
    with one_line_errors():
        env = dict(os.environ)
        path = config_path(env)
        if set_device or set_token or set_data_dir:
            data = read_config_file(path)
            if set_device:
                data.setdefault("device", {})["url"] = set_device
            if set_token:
                data.setdefault("device", {})["token"] = set_token
            if set_data_dir:
                data.setdefault("host", {})["data_dir"] = set_data_dir
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(path.name + ".partial")
            partial.write_text(dump_toml(data), encoding="utf-8")
            partial.chmod(0o600)
            partial.replace(path)
            say(f"saved {path}")
        settings = resolve_settings(env=env)
        shown = {
            "config_file": str(path),
            "exists": path.exists(),
            "device": redact(settings.target) if settings.target else None,
            "token": "set" if settings.token or (settings.target and url_token(settings.target)) else None,
            "data_dir": str(settings.data_dir),
            "sources": settings.sources,
        }
        if check:
            shown["device_id"] = with_device(settings, lambda c: c.device_id())
        if as_json:
            _print_json(shown)
        else:
            _render(stdout(), shown, title="xzmem config")
            if check:
                say(f"device {shown['device_id']} answered at {settings.target}")

