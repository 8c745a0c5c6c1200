"""The live event stream (GET /v1/events, Server-Sent Events), resuming with Last-Event-ID."""

import json
import random
import re
import socket
import threading
from datetime import datetime
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from ._base import Transport, _query_value, retry_delay
from .errors import AgentDraftError, error_for

RETRYABLE = frozenset({429, 500, 502, 503, 504})


def _backoff(failures: int) -> float:
    return min(30.0, 0.5 * 2 ** min(failures, 6)) * (0.75 + random.random() / 2)


def sse_blocks(lines: Iterator[bytes]) -> Iterator[Dict[str, Any]]:
    """The blocks of a text/event-stream body (the SSE format of the HTML standard): id, data, retry."""
    block: Dict[str, Any] = {}
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if block:
                yield block
            block = {}
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "id" and "\0" not in value:
            block["id"] = value
        elif field == "data":
            block["data"] = value if "data" not in block else f"{block['data']}\n{value}"
        elif field == "retry" and re.fullmatch(r"\d+", value):
            block["retry"] = int(value)


class EventStream:
    """The workspace's events as an iterator; every event arrives once, in order, across reconnections.

    Each event is the webhook body (``type``, ``id``, ``created_at``, ``data``, ``trace_id``) plus
    ``position``: store it and pass it as ``last_event_id`` to resume right after that event.
    ``close()`` (or leaving a ``with`` block, or ``break`` then garbage collection) ends it; it
    may be called from another thread. A refusal retrying cannot mend (401, 403, 400) raises
    AgentDraftError.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        types: Optional[Union[str, Sequence[str]]] = None,
        last_event_id: Optional[str] = None,
        since: Optional[Union[str, datetime]] = None,
        after: Optional[str] = None,
        headers: Optional[Dict[str, str]] = None,
    ):
        self._transport = transport
        self._types = types
        self._since = since
        self._headers = headers
        self.last_event_id = last_event_id or after
        self._closed = threading.Event()
        self._response: Any = None
        self._iterator = self._run()

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> Dict[str, Any]:
        return next(self._iterator)

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Ends the stream and its connection (the server frees the key's stream slot)."""
        self._closed.set()
        response = self._response
        if response is not None:
            _shutdown(response)
        try:
            self._iterator.close()
        except ValueError:
            pass  # running in another thread: the shut socket ends it there

    def _query(self) -> Dict[str, Any]:
        query: Dict[str, Any] = {}
        if self._types:
            query["types"] = self._types if isinstance(self._types, str) else list(self._types)
        if self._since and not self.last_event_id:
            query["since"] = _query_value(self._since)
        return query

    def _run(self) -> Iterator[Dict[str, Any]]:
        retry_seconds = 1.0
        failures = 0
        transport = self._transport
        while not self._closed.is_set():
            headers = transport.headers(self._headers)
            headers["accept"] = "text/event-stream"
            if self.last_event_id:
                headers["last-event-id"] = self.last_event_id
            try:
                response = transport.open("GET", transport.url("/v1/events", self._query()), headers, None, max(transport.timeout, 60.0))
            except OSError:
                failures += 1
                if self._closed.wait(_backoff(failures)):
                    return
                continue
            status = response.getcode()
            if status != 200:
                body = response.read()
                response.close()
                try:
                    problem = json.loads(body.decode("utf-8"))
                except ValueError:
                    problem = None
                error = error_for(status, getattr(response, "reason", ""), problem, response.headers.get("x-request-id"))
                if status not in RETRYABLE:
                    raise error
                failures += 1
                retry_after = response.headers.get("retry-after")
                if self._closed.wait(retry_delay(failures, retry_after, cap=60.0) if retry_after else _backoff(failures)):
                    return
                continue
            failures = 0
            self._response = response
            try:
                for block in sse_blocks(iter(response.readline, b"")):
                    if "retry" in block:
                        retry_seconds = block["retry"] / 1000
                    if "id" in block:
                        self.last_event_id = block["id"]
                    if "data" in block:
                        event = json.loads(block["data"])
                        event["position"] = block.get("id", "")
                        yield event
            except (OSError, ValueError, AttributeError):
                # The connection broke mid-stream (or was shut by close()): resume after the last event.
                pass
            finally:
                self._response = None
                response.close()
            if self._closed.wait(retry_seconds):
                return


def _shutdown(response: Any) -> None:
    """Unblocks a read in progress on another thread by shutting the socket down."""
    try:
        sock = response.fp.raw._sock  # http.client.HTTPResponse over a socket file
        sock.shutdown(socket.SHUT_RDWR)
    except (AttributeError, OSError):
        pass
    try:
        response.close()
    except Exception:  # noqa: BLE001 - closing is best effort
        pass


__all__: List[str] = ["EventStream", "sse_blocks"]
