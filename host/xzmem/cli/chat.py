"""`xzmem chat`: talk with a device's memory from the terminal (or from a script on stdin)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Annotated

import anyio
import typer
from anyio.abc import ObjectSendStream
from anyio.lowlevel import EventLoopToken, current_token

from xzmem.cli.common import DeviceOpt, TokenOpt, one_line_errors, require_device, resolve_settings

commands = typer.Typer()

PROMPT = "你> "
HISTORY_LINES = 500
# What handing a line to a chat that has already finished raises: its loop is gone or its stream closed.
CHAT_GONE = (RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError)


def _read_stdin(send: ObjectSendStream[str], token: EventLoopToken) -> None:
    """Feed stdin lines to the chat from a thread; end of input closes the stream."""
    try:
        for line in sys.stdin:
            anyio.from_thread.run_sync(send.send_nowait, line.rstrip("\n"), token=token)
        anyio.from_thread.run_sync(send.close, token=token)
    except CHAT_GONE:
        return


def _read_terminal(send: ObjectSendStream[str], token: EventLoopToken, ready: threading.Event, history: Path) -> None:
    """Feed typed lines to the chat with the terminal's line editing (arrow keys, Ctrl-R) and a
    history kept in `history`; each prompt waits until the chat has answered the line before."""
    try:
        import readline  # input() edits lines once it is loaded; missing on some platforms
    except ImportError:
        readline = None
    if readline is not None:
        try:
            readline.read_history_file(history)
        except OSError:
            pass  # no history yet
        readline.set_history_length(HISTORY_LINES)
    try:
        while True:
            ready.wait()
            ready.clear()
            try:
                line = input(PROMPT)
            except EOFError:
                break
            if readline is not None:
                _save_history(readline, history)  # now: the process may end with this line (/exit)
            anyio.from_thread.run_sync(send.send_nowait, line, token=token)
        anyio.from_thread.run_sync(send.close, token=token)
    except CHAT_GONE:
        return


def _save_history(readline, history: Path) -> None:
    try:
        history.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(history)
    except OSError:
        pass  # a history that cannot be saved costs nothing stored


@commands.command()
def chat(
    device: DeviceOpt = None,
    token: TokenOpt = None,
    idle_minutes: Annotated[float | None, typer.Option(
        "--idle-minutes", min=0.05, help="Silence that ends a conversation (reflection); default \\[chat] idle_minutes, 5.")] = None,
) -> None:
    """Chat with the device's memory: the LLM answers with the `memory` tool, the pipelines write what
    was learned after each turn, reminders show up as they fall due. /exit or end of input quits."""
    with one_line_errors():
        settings = resolve_settings(device, token)
        cfg = settings.config
        if idle_minutes is not None:
            cfg.chat.idle_minutes = idle_minutes
        require_device(settings)
        from xzmem.chat.loop import run_chat  # the pipelines and jieba load only for a chat

        def say(text: str) -> None:
            print(text, flush=True)

        async def main() -> None:
            send, receive = anyio.create_memory_object_stream[str](max_buffer_size=256)
            async with receive:
                # A terminal gets line editing and a prompt once the chat is ready for the next line;
                # a script's lines are echoed as each turn starts, so the transcript reads like a
                # conversation.
                if sys.stdin.isatty():
                    ready = threading.Event()
                    history = settings.data_dir / "chat_history"
                    threading.Thread(target=_read_terminal, args=(send, current_token(), ready, history),
                                     daemon=True).start()
                    await run_chat(cfg, settings.target, settings.token, receive, say, ready=ready.set)
                else:
                    threading.Thread(target=_read_stdin, args=(send, current_token()), daemon=True).start()
                    await run_chat(cfg, settings.target, settings.token, receive, say, echo=PROMPT)

        anyio.run(main)
