"""A scriptable OpenAI-compatible chat server on 127.0.0.1 for tests (standard library only).

Queue replies with `reply()`: content text, HTTP status, a delay (to cause client timeouts), a raw
body, tool calls (`tool_calls=[(name, arguments_dict), ...]`, answered as an assistant message that
asks for them), and an optional `match` substring so concurrent stages (sieve and change detection)
each get their own answer. Every request is recorded in `requests`. An empty queue answers HTTP 500.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Reply:
    content: str | None = None
    status: int = 200
    delay: float = 0.0
    body: str | None = None
    match: str | None = None
    tool_calls: list | None = None


class FakeLLM:
    def __init__(self):
        self.requests: list[dict] = []
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeLLM:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply(self, content=None, status=200, delay=0.0, body=None, match=None, tool_calls=None) -> None:
        if content is not None and not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        with self._lock:
            self._queue.append(Reply(content, status, delay, body, match, tool_calls))

    def pending(self) -> int:
        return len(self._queue)

    def _take(self, request_text: str) -> Reply | None:
        with self._lock:
            for i, r in enumerate(self._queue):
                if r.match is None or r.match in request_text:
                    return self._queue.pop(i)
        return None

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append({"path": self.path, "body": body, "headers": {k.lower(): v for k, v in self.headers.items()}})
                text = "\n".join(m.get("content") or "" for m in body.get("messages", []))
                scripted = fake._take(text)
                if scripted is None:
                    scripted = Reply(status=500, body='{"error": {"message": "no scripted reply"}}')
                if scripted.delay:
                    time.sleep(scripted.delay)
                fake.requests[-1]["answered_at"] = time.monotonic()  # just before the answer is written
                if scripted.body is not None:
                    payload = scripted.body
                elif scripted.status != 200:
                    payload = json.dumps({"error": {"message": "scripted failure", "type": "server_error"}})
                else:
                    message = {"role": "assistant", "content": scripted.content}
                    if scripted.tool_calls:
                        message["tool_calls"] = [
                            {"id": f"call_{i}", "type": "function",
                             "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
                            for i, (name, args) in enumerate(scripted.tool_calls)
                        ]
                    payload = json.dumps({
                        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "tool_calls" if scripted.tool_calls else "stop",
                                     "message": message}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }, ensure_ascii=False)
                data = payload.encode("utf-8")
                try:
                    self.send_response(scripted.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler


@pytest.fixture
def fake_llm():
    server = FakeLLM().start()
    yield server
    server.stop()
