"""A scripted stand-in for the Anthropic Messages API, bound to 127.0.0.1 on a free port.

The real Claude Code CLI is pointed at it with ``ANTHROPIC_BASE_URL``. It answers
``POST /v1/messages`` with a streamed (SSE) or plain JSON message in the real API's format and
records every request in arrival order, so a test can check exactly what reached "the model".

A test scripts one CLI run at a time with ``MockMessagesAPI.script(prompt, turns)``:

* ``turns`` is a list of assistant turns; each turn is a list of content blocks made with
  ``text("...")`` and ``tool_use("Bash", {"command": "..."})``.
* The turn answered is chosen from the request alone: the number of assistant messages after the
  last user message whose text contains ``prompt``. A retried request therefore gets the same
  answer, and a later session (whose prompt differs) starts again at turn 0.
* Past the end of the script, or for requests that are not the run's main conversation (no tools,
  e.g. a title or summary helper, or a conversation that does not contain the prompt), the answer
  is a short text turn ending the conversation.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

Block = dict[str, Any]
Turn = list[Block]

SIDE_REPLY = "ok"
EXHAUSTED_REPLY = "(mock: script exhausted)"
MAX_BODY_BYTES = 64 * 1024 * 1024


def text(value: str) -> Block:
    return {"type": "text", "text": value}


def tool_use(name: str, tool_input: dict[str, Any]) -> Block:
    return {"type": "tool_use", "name": name, "input": tool_input}


def message_text(message: dict[str, Any]) -> str:
    """Every piece of text in one message: string content, text blocks and tool results."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                parts.append(inner)
            elif isinstance(inner, list):
                parts.extend(
                    str(b.get("text", "")) for b in inner if isinstance(b, dict)
                )
    return "\n".join(parts)


def _prompt_text(message: dict[str, Any]) -> str:
    """Text a user typed: string content and text blocks (tool results excluded)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        str(b.get("text", ""))
        for b in content or []
        if isinstance(b, dict) and b.get("type") == "text"
    )


@dataclass
class RecordedRequest:
    seq: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    kind: str  # "main", "side", "count_tokens" or "other"
    turn_index: int | None = None
    answer: Turn = field(default_factory=list)
    received_at: float = 0.0

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict):
            return [m for m in self.body.get("messages") or [] if isinstance(m, dict)]
        return []

    @property
    def system_text(self) -> str:
        system = self.body.get("system") if isinstance(self.body, dict) else None
        if isinstance(system, str):
            return system
        return "\n".join(
            str(b.get("text", "")) for b in system or [] if isinstance(b, dict)
        )

    @property
    def full_text(self) -> str:
        """System prompt plus the text of every message, as the model would read it."""
        return "\n".join([self.system_text, *(message_text(m) for m in self.messages)])

    def tool_results(self) -> list[dict[str, Any]]:
        found = []
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, list):
                found.extend(
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                )
        return found


class MockMessagesAPI:
    """Threaded HTTP server; use as a context manager or call start()/stop()."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._prompt: str | None = None
        self._turns: list[Turn] = []
        self._tool_ids = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MockMessagesAPI:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="mock-messages-api", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> MockMessagesAPI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- scripting and records ----------------------------------------------------------------
    def script(self, prompt: str, turns: list[Turn]) -> None:
        with self._lock:
            self._prompt = prompt
            self._turns = [list(turn) for turn in turns]

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def mark(self) -> int:
        with self._lock:
            return len(self._requests)

    def requests_since(self, mark: int) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests[mark:])

    def _tool_id(self) -> str:
        with self._lock:
            self._tool_ids += 1
            return f"toolu_mock{self._tool_ids:06d}"

    def _record(self, record: RecordedRequest) -> int:
        with self._lock:
            record.seq = len(self._requests) + 1
            self._requests.append(record)
            return record.seq

    def _choose(self, body: dict[str, Any]) -> tuple[str, int | None, Turn]:
        """(kind, turn index, blocks) for a POST /v1/messages body."""
        with self._lock:
            prompt, turns = self._prompt, self._turns
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if not body.get("tools") or not prompt:
            return "side", None, [text(SIDE_REPLY)]
        start = None
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].get("role") == "user" and prompt in _prompt_text(messages[i]):
                start = i
                break
        if start is None:
            return "side", None, [text(SIDE_REPLY)]
        index = sum(1 for m in messages[start:] if m.get("role") == "assistant")
        if index < len(turns):
            return "main", index, turns[index]
        return "main", index, [text(EXHAUSTED_REPLY)]

    # -- HTTP -------------------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "pokayokay-e2e-mock/1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean; every request is recorded instead

            def _body(self) -> bytes:
                if self.headers.get("transfer-encoding", "").lower() == "chunked":
                    data = b""
                    while len(data) < MAX_BODY_BYTES:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        data += self.rfile.read(size)
                        self.rfile.readline()
                    return data
                length = int(self.headers.get("content-length") or 0)
                return self.rfile.read(min(length, MAX_BODY_BYTES)) if length else b""

            def _headers(self) -> dict[str, str]:
                redacted = {"x-api-key", "authorization"}
                return {
                    k: ("<redacted>" if k.lower() in redacted else v)
                    for k, v in self.headers.items()
                }

            def _record(self, kind: str, body: Any, turn_index: int | None = None,
                        answer: Turn | None = None) -> int:
                return api._record(RecordedRequest(
                    seq=0, method=self.command, path=self.path, headers=self._headers(),
                    body=body, kind=kind, turn_index=turn_index, answer=list(answer or []),
                    received_at=time.time(),
                ))

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("request-id", "req_mock")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _not_found(self, body: Any) -> None:
                self._record("other", body)
                self._json(404, {"type": "error", "error": {
                    "type": "not_found_error",
                    "message": f"mock: no route for {self.command} {self.path}",
                }})

            def do_HEAD(self) -> None:
                self._record("other", None)
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                if urlsplit(self.path).path == "/":
                    self._record("other", None)
                    self._json(200, {"status": "ok"})
                    return
                self._not_found(None)

            def do_PUT(self) -> None:
                self._not_found(self._decode(self._body()))

            def do_DELETE(self) -> None:
                self._not_found(self._decode(self._body()))

            @staticmethod
            def _decode(raw: bytes) -> Any:
                if not raw:
                    return None
                try:
                    return json.loads(raw)
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def do_POST(self) -> None:
                raw = self._body()
                body = self._decode(raw)
                path = urlsplit(self.path).path
                if path == "/v1/messages/count_tokens":
                    self._record("count_tokens", body)
                    self._json(200, {"input_tokens": max(1, len(raw) // 4)})
                    return
                if path != "/v1/messages" or not isinstance(body, dict):
                    self._not_found(body)
                    return
                kind, turn_index, blocks = api._choose(body)
                content = []
                for block in blocks:
                    block = dict(block)
                    if block.get("type") == "tool_use":
                        block.setdefault("id", api._tool_id())
                        block.setdefault("input", {})
                    content.append(block)
                seq = self._record(kind, body, turn_index, content)
                stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
                model = str(body.get("model") or "claude-mock")
                usage = {"input_tokens": max(1, len(raw) // 4), "output_tokens": 1,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
                message = {"id": f"msg_mock{seq:04d}", "type": "message", "role": "assistant",
                           "model": model, "stop_sequence": None}
                if not body.get("stream"):
                    self._json(200, {**message, "content": content, "stop_reason": stop,
                                     "usage": usage})
                    return
                self._stream(message, content, stop, usage)

            def _stream(self, message: dict[str, Any], content: Turn, stop: str,
                        usage: dict[str, int]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream; charset=utf-8")
                self.send_header("cache-control", "no-cache")
                self.send_header("request-id", "req_mock")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True

                def event(name: str, data: dict[str, Any]) -> None:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()

                event("message_start", {"type": "message_start", "message": {
                    **message, "content": [], "stop_reason": None, "usage": usage}})
                event("ping", {"type": "ping"})
                for index, block in enumerate(content):
                    if block["type"] == "tool_use":
                        start = {"type": "tool_use", "id": block["id"], "name": block["name"],
                                 "input": {}}
                        event("content_block_start", {"type": "content_block_start",
                                                      "index": index, "content_block": start})
                        encoded = json.dumps(block["input"])
                        # Like the real API: the input arrives as several JSON fragments.
                        for piece in ["", *_chunks(encoded, 24)]:
                            event("content_block_delta", {
                                "type": "content_block_delta", "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": piece}})
                    elif block["type"] == "text":
                        event("content_block_start", {
                            "type": "content_block_start", "index": index,
                            "content_block": {"type": "text", "text": ""}})
                        for piece in _chunks(str(block.get("text", "")), 40):
                            event("content_block_delta", {
                                "type": "content_block_delta", "index": index,
                                "delta": {"type": "text_delta", "text": piece}})
                    else:
                        event("content_block_start", {"type": "content_block_start",
                                                      "index": index, "content_block": block})
                    event("content_block_stop", {"type": "content_block_stop", "index": index})
                output_tokens = max(1, len(json.dumps(content)) // 4)
                event("message_delta", {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": output_tokens}})
                event("message_stop", {"type": "message_stop"})

        return Handler


def _chunks(value: str, size: int) -> list[str]:
    return [value[i:i + size] for i in range(0, len(value), size)] or [""]
