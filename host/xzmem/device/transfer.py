"""Export files: all of a device's memory paged out to JSON, checked and loaded back in chunks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.ops import split_runs

EXPORT_FORMAT = "xzmem-export"
EXPORT_VERSION = 1
EXPORT_PAGE = 100
IMPORT_CHUNK = 25  # records per memory_sync import at most (fewer when they are long: ops.split_runs)


class ExportFileError(ValueError):
    """An export file that cannot be imported; the message names the file and the fault."""


async def export_records(
    client: DeviceClient, on_page: Callable[[int], None] | None = None, archive: bool = False
) -> list[dict[str, Any]]:
    """Every record the device exports (the archive's lines first with `archive`), page by page;
    `on_page(n)` after each page of n records."""
    records: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        args: dict[str, Any] = {"action": "export", "limit": EXPORT_PAGE}
        if archive:
            args["archive"] = True
        if cursor:
            args["cursor"] = cursor
        page = await client.sync(**args)
        if not isinstance(page, dict) or not isinstance(page.get("records"), list):
            raise DeviceError(f"device answered export with {str(page)[:80]}")
        records.extend(page["records"])
        if on_page is not None:
            on_page(len(page["records"]))
        cursor = page.get("next_cursor")
        if not cursor:
            return records


def write_export(path: Path, device_id: str, records: list[dict[str, Any]],
                 config: dict[str, Any] | None = None) -> None:
    """Write the export file under a temporary name, then rename it: no half file on a crash.
    A backup (`xzmem backup`) also holds the device's config without its secrets."""
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "device_id": device_id,
        "exported_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        "records": records,
    }
    if config is not None:
        document["config"] = config
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    partial.replace(path)


def read_export(path: Path) -> list[dict[str, Any]]:
    """The records of an export file, or ExportFileError naming what is wrong with it."""
    return read_backup(path)[0]


def read_backup(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The records and the config (None in a plain export) of an export or backup file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExportFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ExportFileError(f"{path}: cannot read it: {exc}") from None
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ExportFileError(f"{path} is not an xzmem export: not JSON ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ExportFileError(f'{path} is not an xzmem export: no "format": "{EXPORT_FORMAT}"')
    if document.get("version") != EXPORT_VERSION:
        raise ExportFileError(
            f"{path}: export version {document.get('version')!r} is not supported (want {EXPORT_VERSION})"
        )
    records = document.get("records")
    if not isinstance(records, list):
        raise ExportFileError(f'{path} is not an xzmem export: "records" must be a list')
    for i, record in enumerate(records):
        if not isinstance(record, dict) or not record:
            raise ExportFileError(f"{path}: records[{i}] must be a non-empty object, got {json.dumps(record)[:40]}")
    config = document.get("config")
    if config is not None and not isinstance(config, dict):
        raise ExportFileError(f'{path}: "config" must be an object, got {json.dumps(config)[:40]}')
    return records, config


def config_differences(saved: dict[str, Any], device: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(key, the device's value, the backup's) for each setting the device no longer has as saved."""
    return [(key, device.get(key), value) for key, value in sorted(saved.items()) if device.get(key) != value]


def import_chunks(records: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(batch_id, records) chunks. The ids follow from the records, so importing the same file
    again after an interruption replays the chunks the device already has."""
    digest = hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()[:16]
    return [
        (f"imp-{digest}-{n}", chunk) for n, chunk in enumerate(split_runs(records, IMPORT_CHUNK))
    ]


async def import_records(
    client: DeviceClient, records: list[dict[str, Any]], on_chunk: Callable[[int], None] | None = None
) -> list[dict[str, Any]]:
    """Send the records with memory_sync import, chunk by chunk; the device's answers in order."""
    answers = []
    for batch_id, chunk in import_chunks(records):
        answers.append(await client.sync(action="import", batch_id=batch_id, records=chunk))
        if on_chunk is not None:
            on_chunk(len(chunk))
    return answers


def summarize_import(answers: list[Any]) -> tuple[dict[str, int], int, list[tuple[int, str, str]]]:
    """(count per result kind, chunks the device had already imported, refused records as
    (index in the file, type, the device's reason))."""
    tally: dict[str, int] = {}
    replayed = 0
    refused: list[tuple[int, str, str]] = []
    start = 0  # the chunk's first record in the file: chunks differ in size, one result per record
    for answer in answers:
        if not isinstance(answer, dict):
            continue
        if answer.get("replayed"):
            replayed += 1
        results = answer.get("results", [])
        for i, result in enumerate(results):
            kind = result.get("result", "?") if isinstance(result, dict) else "?"
            if kind == "REFUSED":
                refused.append((start + i, str(result.get("type")), str(result.get("detail", ""))))
            if not answer.get("replayed"):
                tally[kind] = tally.get(kind, 0) + 1
        start += len(results)
    return tally, replayed, refused
