"""Adds the memory selection to a xiaozhi-esp32-server config file and changes nothing else.

The server reads config.yaml, then data/.config.yaml over it (a key by key merge), with PyYAML,
where a key written twice keeps only its last value. So a second `selected_module:` appended to a
file that has one replaces the user's whole selection (their ASR, LLM and TTS fall back to the
defaults). The file is edited in place instead: `Memory: xzmem` goes into the existing
`selected_module` block, the `xzmem:` entry into the existing `Memory` block, each added where
missing; every other line stays byte for byte. The result is parsed again and must equal the old
settings plus these two entries, else nothing is written.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from xzmem.integrations.settings import PROVIDER_TYPE

SELECTION = "selected_module"
SECTION = "Memory"
BACKUP_SUFFIX = ".before-xzmem"
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
_CHILD_KEY = re.compile(r"^(\s+)([A-Za-z_][\w-]*)\s*:(.*)$")


class ConfigEditError(Exception):
    """The config cannot be changed safely; the message says why and what to add by hand."""


@dataclass
class ConfigEdit:
    path: Path
    text: str  # the new file
    old_memory: str | None  # the memory module selected before
    created: bool


def _parse(text: str, path: Path) -> dict:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigEditError(f"{path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigEditError(f"{path} must hold a mapping of settings")
    return data


def _block(lines: list[str], key: str) -> tuple[int, int] | None:
    """(header line, end) of a top-level `key:` block written in block style; None when absent."""
    for i, line in enumerate(lines):
        found = _TOP_KEY.match(line)
        if found and found.group(1) == key:
            rest = found.group(2).split("#", 1)[0].strip()
            if rest:
                raise ConfigEditError(f"`{key}:` is written on one line ({line.strip()}); "
                                      f"write it as an indented block to let xzmem add to it")
            end = i + 1
            for j in range(i + 1, len(lines)):
                if lines[j].strip() and not lines[j].startswith((" ", "\t", "#")):
                    break
                if lines[j].strip() and not lines[j].lstrip().startswith("#"):
                    end = j + 1
            return i, end
    return None


def _indent(lines: list[str], start: int, end: int) -> str:
    for line in lines[start + 1 : end]:
        found = _CHILD_KEY.match(line)
        if found:
            return found.group(1)
    return "  "


def _child(lines: list[str], start: int, end: int, indent: str, key: str) -> tuple[int, int] | None:
    # (line, end) of `key:` directly under a top-level block, with what is indented under it.
    for i in range(start + 1, end):
        found = _CHILD_KEY.match(lines[i])
        if found and found.group(1) == indent and found.group(2) == key:
            stop = i + 1
            for j in range(i + 1, end):
                text = lines[j]
                if text.strip() and not text.lstrip().startswith("#"):
                    if len(text) - len(text.lstrip()) <= len(indent):
                        break
                    stop = j + 1
            return i, stop
    return None


def provider_entry(settings: dict[str, Any], indent: str) -> list[str]:
    """The `xzmem:` entry of the Memory block, as lines at `indent`."""
    inner = indent * 2
    lines = [f"{indent}{PROVIDER_TYPE}:"]
    for key, value in settings.items():
        lines.append(f"{inner}{key}: {_scalar(value)}")
    return lines


def _scalar(value: Any) -> str:
    # Whole numbers bare, text double-quoted (a token or URL may hold ':', '#' or start with '@').
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def add_memory_selection(path: Path, settings: dict[str, Any]) -> ConfigEdit:
    """The config file with `selected_module.Memory: xzmem` and `Memory.xzmem: settings` added.

    Raises ConfigEditError (nothing written) when the file cannot be changed that way safely.
    """
    created = not path.exists()
    try:
        text = "" if created else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigEditError(f"cannot read {path}: {exc}") from None
    before = _parse(text, path)
    api = before.get("manager-api")
    if isinstance(api, dict) and api.get("url"):
        raise ConfigEditError(f"{path} takes its settings from the manager console (manager-api.url): "
                              "the memory module is chosen there, not in this file")
    old = before.get(SELECTION, {}).get(SECTION) if isinstance(before.get(SELECTION), dict) else None
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        text += "\n"

    found = _block(lines, SELECTION)
    if found is None:
        lines += ["", f"{SELECTION}:", f"  {SECTION}: {PROVIDER_TYPE}"]
    else:
        start, end = found
        indent = _indent(lines, start, end)
        child = _child(lines, start, end, indent, SECTION)
        if child is None:
            lines.insert(start + 1, f"{indent}{SECTION}: {PROVIDER_TYPE}")
        else:
            comment = lines[child[0]].partition("#")[2]
            lines[child[0]] = f"{indent}{SECTION}: {PROVIDER_TYPE}" + (f"  #{comment}" if comment else "")

    found = _block(lines, SECTION)
    if found is None:
        lines += ["", f"{SECTION}:", *provider_entry(settings, "  ")]
    else:
        start, end = found
        indent = _indent(lines, start, end)
        entry = provider_entry(settings, indent)
        child = _child(lines, start, end, indent, PROVIDER_TYPE)
        if child is None:
            lines[end:end] = entry
        else:
            lines[child[0] : child[1]] = entry

    new_text = "\n".join(lines).lstrip("\n") + "\n"
    expected = copy.deepcopy(before)
    selection = expected.get(SELECTION)
    expected[SELECTION] = dict(selection or {}, **{SECTION: PROVIDER_TYPE})
    section = expected.get(SECTION)
    expected[SECTION] = dict(section or {}, **{PROVIDER_TYPE: dict(settings)})
    if _parse(new_text, path) != expected:
        raise ConfigEditError(f"could not add the memory selection to {path} without changing other settings; "
                              f"add by hand: under `{SELECTION}:` the line `{SECTION}: {PROVIDER_TYPE}`, and under "
                              f"`{SECTION}:` the `{PROVIDER_TYPE}:` entry")
    return ConfigEdit(path, new_text, old, created)


def write_edit(edit: ConfigEdit) -> Path | None:
    """Write the edited config; the file as it was is kept beside it. Returns that copy's path."""
    backup = None
    edit.path.parent.mkdir(parents=True, exist_ok=True)
    if not edit.created:
        backup = edit.path.with_name(edit.path.name + BACKUP_SUFFIX)
        backup.write_bytes(edit.path.read_bytes())
    tmp = edit.path.with_name(edit.path.name + ".tmp")
    tmp.write_text(edit.text, encoding="utf-8")
    tmp.replace(edit.path)
    return backup
