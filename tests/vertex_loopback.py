"""A loopback HTTP server that answers like the Vertex AI REST API, for the real google-genai SDK.

Point ``genai.Client(vertexai=True, ..., http_options=HttpOptions(base_url=server.url))`` at it
(``settings.vertex_base_url``) and the SDK sends its real requests here:

- ``POST /v1beta1/projects/P/locations/L/publishers/google/models/M:generateContent``
- ``POST ...:streamGenerateContent?alt=sse`` (answered as server-sent events, one
  ``GenerateContentResponse`` per ``data:`` line)
- ``POST ...:predict`` (text-embedding-* models) and ``...:embedContent`` (gemini-embedding-*);
  embeddings are computed from the request (one deterministic vector per text, of the
  requested ``outputDimensionality``) unless a reply is scripted.

Each test scripts what the model does (``script``: replies used once, in order; ``always``:
the reply when the script is empty) and reads back what the SDK sent (``requests``).
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections import deque
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger(__name__)

MODEL_VERSION = "loopback-001"
_ERROR_STATUS = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


@dataclass(frozen=True)
class Reply:
    """What the fake model does with one request."""

    text: str = ""  # the model's text (generateContent, streamGenerateContent)
    status: int = 200  # >= 400: a Google API error body with this code
    delay_s: float = 0.0  # wait this long before answering (past the client timeout = slow)
    chunk_chars: int = 12  # streaming: the text is cut into events of this many characters

    @classmethod
    def plan(cls, plan: dict[str, Any]) -> Reply:
        """The model answers with this plan as its JSON text."""
        return cls(text=json.dumps(plan))

    @classmethod
    def error(cls, status: int) -> Reply:
        return cls(status=status)

    @classmethod
    def slow(cls, delay_s: float, text: str = "{}") -> Reply:
        return cls(text=text, delay_s=delay_s)


@dataclass(frozen=True)
class Seen:
    """One request the SDK sent."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def action(self) -> str:
        """``generateContent``, ``streamGenerateContent``, ``predict``, ``embedContent``."""
        return self.path.rsplit(":", 1)[-1]

    @property
    def model(self) -> str:
        return self.path.rsplit(":", 1)[0].rsplit("/", 1)[-1]

    @property
    def user_text(self) -> str:
        """The text of every part of every content the SDK sent."""
        contents = self.body.get("contents", [])
        return "\n".join(p.get("text", "") for c in contents for p in c.get("parts", []))


def _candidate(text: str, finished: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
    if finished:
        candidate["finishReason"] = "STOP"
    return {"candidates": [candidate], "modelVersion": MODEL_VERSION}


def _vector(text: str, dims: int) -> list[float]:
    rng = random.Random(text)  # a str seed is stable across processes
    return [rng.uniform(-1, 1) for _ in range(dims)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, loopback: VertexLoopback) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.loopback = loopback


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("loopback: " + format, *args)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        seen = Seen(
            method="POST",
            path=url.path,
            query=parse_qs(url.query),
            headers=dict(self.headers.items()),
            body=json.loads(raw) if raw else {},
        )
        loopback = self.server.loopback
        reply = loopback.take(seen)
        try:
            if reply and reply.delay_s and loopback.wait(reply.delay_s):
                return  # shutting down
            self._answer(seen, reply)
        except (BrokenPipeError, ConnectionResetError):
            log.debug("loopback: the client left before the reply (timeout)")

    def _answer(self, seen: Seen, reply: Reply | None) -> None:
        if reply is not None and reply.status >= 400:
            return self._error(reply.status, "scripted error")
        match seen.action:
            case "generateContent" if reply is not None:
                self._json(_candidate(reply.text, finished=True))
            case "streamGenerateContent" if reply is not None:
                self._events(reply)
            case "predict":
                dims = seen.body.get("parameters", {}).get("outputDimensionality", 768)
                predictions = [
                    {"embeddings": {"values": _vector(i["content"], dims), "statistics": {}}}
                    for i in seen.body.get("instances", [])
                ]
                self._json({"predictions": predictions})
            case "embedContent":
                dims = seen.body.get("embedContentConfig", {}).get("outputDimensionality", 768)
                text = "".join(p.get("text", "") for p in seen.body["content"]["parts"])
                self._json({"embedding": {"values": _vector(text, dims)}})
            case _:
                self._error(501, f"loopback: nothing scripted for {seen.action}")

    def _json(self, payload: dict[str, Any], status: int = 200) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        error = {"code": status, "message": message, "status": _ERROR_STATUS.get(status, "UNKNOWN")}
        self._json({"error": error}, status=status)

    def _events(self, reply: Reply) -> None:
        """Server-sent events, as Vertex answers ``alt=sse``; the connection close ends them."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        size = reply.chunk_chars
        pieces = [reply.text[i : i + size] for i in range(0, len(reply.text), size)] or [""]
        for index, piece in enumerate(pieces):
            event = _candidate(piece, finished=index == len(pieces) - 1)
            self.wfile.write(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
            self.wfile.flush()


class VertexLoopback:
    """The server, on 127.0.0.1 and a free port, in a background thread."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self._script: deque[Reply] = deque()
        self._default: Reply | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *replies: Reply) -> None:
        """Replies for the next requests, one each, in order."""
        with self._lock:
            self._script.extend(replies)

    def always(self, reply: Reply | None) -> None:
        """The reply once the script is used up (``None``: only embeddings are answered)."""
        self._default = reply

    def take(self, seen: Seen) -> Reply | None:
        with self._lock:
            self.requests.append(seen)
            return self._script.popleft() if self._script else self._default

    def calls(self, action: str) -> list[Seen]:
        with self._lock:
            return [r for r in self.requests if r.action == action]

    def wait(self, seconds: float) -> bool:
        """Sleep, waking early (and returning True) when the server shuts down."""
        return self._closing.wait(seconds)

    def __enter__(self) -> VertexLoopback:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
