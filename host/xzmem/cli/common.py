"""What every command shares: device settings (option > environment > config file), one-line errors,
the console helpers and the --device/--token options."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

import anyio
import typer
from rich.console import Console

from xzmem.config import Config, ConfigError, env_source, load_config
from xzmem.device.address import is_websocket_target, redact
from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.transfer import ExportFileError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (xiaozhi-esp32-server's image): the same parser as a package
    import tomli as tomllib

T = TypeVar("T")


class CliProblem(Exception):
    """A mistake the user can fix (bad argument, bad file); printed as one line."""


# --- settings: option > device URL's token > environment > config file ---------------------------------------------


@dataclass
class DeviceSettings:
    target: str | None
    token: str | None
    config_path: Path
    data_dir: Path
    sources: dict[str, str]
    config: Config


def read_config_file(path: Path) -> dict[str, Any]:
    """The config file as raw tables, for `xzmem config` to add to and write back."""
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CliProblem(f"config file {path} is not valid TOML: {exc}") from None


def resolve_settings(device: str | None = None, token: str | None = None, env: dict[str, str] | None = None) -> DeviceSettings:
    """Where the device is and how to get in: the option, else the shared Config (config.py), which
    has $XZMEM_DEVICE/$XZMEM_TOKEN over the `[device]` table (`url`, `token`) of the config file; a
    `?token=` in the device URL beats every token but --token's.
    The data dir (for the outbox) is the Config's too: $XZMEM_DATA_DIR, else `[host] data_dir`,
    else ~/.local/share/xzmem.
    """
    env = dict(os.environ if env is None else env)
    try:
        cfg = load_config(env=env)
    except ConfigError as exc:
        raise CliProblem(str(exc)) from None
    sources: dict[str, str] = {}

    def pick(name: str, option: str | None, key: str) -> str | None:
        value = option or getattr(cfg.device, key)
        if value:
            sources[name] = "option" if option else env_source(env, "device", key) or cfg.source
        return value or None

    target = pick("device", device, "url")
    if not token and target and url_token(target):
        # The most specific setting wins: a token inside the device URL beats the environment and
        # the file (the URL `xzmem gateway` prints must work as given).
        sources["token"] = "device URL"
        return DeviceSettings(target, None, Path(cfg.source), cfg.data_path, sources, cfg)
    secret = pick("token", token, "token")
    return DeviceSettings(target, secret, Path(cfg.source), cfg.data_path, sources, cfg)


def url_token(target: str) -> str | None:
    """The `token` query parameter of a ws:// device URL, if it has one."""
    if not is_websocket_target(target):
        return None
    return dict(parse_qsl(urlsplit(target).query)).get("token") or None


# --- running and reporting ---------------------------------------------------------------------


def stdout() -> Console:
    return Console(highlight=False)


def stderr() -> Console:
    return Console(stderr=True, highlight=False)


def say(line: str) -> None:
    """One line of plain text on stdout, never wrapped."""
    stdout().print(line, markup=False, soft_wrap=True)


@contextmanager
def one_line_errors() -> Iterator[None]:
    try:
        yield
    except (DeviceError, CliProblem, ExportFileError) as exc:
        stderr().print("xzmem: " + " ".join(str(exc).split()), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(1) from None


def require_device(settings: DeviceSettings) -> None:
    """CliProblem unless the settings name a device (and a token for a WebSocket one)."""
    if not settings.target:
        raise CliProblem(
            "no device: pass --device ws://HOST:PORT/mcp (or a serial port), set XZMEM_DEVICE, "
            "or save one with `xzmem config --device ...`"
        )
    scheme = settings.target.partition("://")[0] if "://" in settings.target else ""
    if scheme and scheme not in ("ws", "wss"):
        raise CliProblem(
            f"--device must be ws://HOST:PORT/mcp, wss://... or a serial port, got a {scheme}:// address "
            f"({redact(settings.target)})"
        )
    if is_websocket_target(settings.target) and not settings.token and not url_token(settings.target):
        raise CliProblem(f"no token for {settings.target}: pass --token, set XZMEM_TOKEN, or save one with `xzmem config`")


def with_device(settings: DeviceSettings, work: Callable[[DeviceClient], Awaitable[T]]) -> T:
    require_device(settings)

    async def main() -> T:
        async with DeviceClient(settings.target, settings.token) as client:
            return await work(client)

    return anyio.run(main)


DeviceOpt = Annotated[
    str | None,
    typer.Option(
        "--device", "-d", show_default=False,
        help="ws://HOST:PORT/mcp or a serial port (/dev/ttyUSB0, u0); default $XZMEM_DEVICE, then the config file.",
    ),
]
TokenOpt = Annotated[
    str | None,
    typer.Option("--token", "-t", show_default=False, help="Device token; default $XZMEM_TOKEN, then the config file."),
]
