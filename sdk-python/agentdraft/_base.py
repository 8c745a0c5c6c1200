"""The transport under the generated operations: urllib, retries, Idempotency-Keys, problem errors."""

import asyncio
import json
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Callable, Dict, Iterator, Mapping, Optional, Tuple, TypeVar

from .errors import AgentDraftError, error_for

T = TypeVar("T")

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = "agentdraft-python/0.1.0"


def api_base_url(base_url: str = "http://localhost:3000") -> str:
    """The API root for an app origin: ``http://localhost:3000`` → ``http://localhost:3000/api``."""
    trimmed = base_url.rstrip("/")
    return trimmed if trimmed.endswith("/api") else f"{trimmed}/api"


def _path(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ",".join(_query_value(v) for v in value)
    return str(value)


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
    return urllib.parse.urlencode(pairs)


def _paginate(fetch_page: Callable[[Optional[str]], Any], starting_after: Optional[str] = None) -> Iterator[Any]:
    """Every item of a list, page after page: the next page starts after the last item's id."""
    cursor = starting_after
    while True:
        page = fetch_page(cursor)
        items = page.get("data") or []
        yield from items
        if not page.get("has_more") or not items:
            return
        cursor = items[-1]["id"]


def retry_delay(attempt: int, retry_after: Optional[str] = None, cap: float = 30.0) -> float:
    """Seconds before the next attempt: Retry-After when the server gave one (at most ``cap``), else jittered backoff."""
    try:
        seconds = float(retry_after) if retry_after is not None else 0.0
    except ValueError:
        seconds = 0.0
    if seconds > 0:
        return min(seconds, cap)
    return min(8.0, 0.25 * 2**attempt) * (0.75 + random.random() / 2)


class Response:
    """What one HTTP exchange answered: status, headers (lower-cased names) and the body."""

    def __init__(self, status: int, reason: str, headers: Mapping[str, str], body: bytes):
        self.status = status
        self.reason = reason
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8")) if self.body else None
        except ValueError:
            return None


class Transport:
    """Sends requests with bounded retries; a POST carries an Idempotency-Key, so a retry never acts twice."""

    def __init__(self, api_key: str, base_url: str, trace_id: Optional[str], max_retries: int, timeout: float):
        if not api_key:
            raise ValueError("AgentDraft: api_key is required (ad_live_... or ad_test_...)")
        self.api_key = api_key
        self.base_url = api_base_url(base_url)
        self.trace_id = trace_id
        self.max_retries = max_retries
        self.timeout = timeout
        #: Called with (method, url, headers) before each attempt (tests, logging).
        self.on_attempt: Optional[Callable[[str, str, Dict[str, str]], None]] = None

    def headers(self, extra: Optional[Mapping[str, Optional[str]]] = None) -> Dict[str, str]:
        headers = {"authorization": f"Bearer {self.api_key}", "user-agent": USER_AGENT, "accept": "application/json"}
        if self.trace_id:
            headers["x-trace-id"] = self.trace_id
        for name, value in (extra or {}).items():
            if value is not None:
                headers[name.lower()] = value
        return headers

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        qs = _query_string(query)
        return f"{self.base_url}{path}{'?' + qs if qs else ''}"

    def open(self, method: str, url: str, headers: Mapping[str, str], data: Optional[bytes], timeout: float):
        """One attempt; returns the open response (an HTTPError is a response too)."""
        if self.on_attempt:
            self.on_attempt(method, url, dict(headers))
        request = urllib.request.Request(url, data=data, method=method, headers=dict(headers))
        try:
            return urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as answered:
            return answered

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, Optional[str]]] = None,
        stream: bool = False,
    ) -> Tuple[Any, Optional[Response]]:
        """The response of a call, after retries: (open response, None) when streaming, else (None, Response)."""
        all_headers = self.headers(headers)
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            all_headers["content-type"] = "application/json"
        if method == "POST" and "idempotency-key" not in all_headers:
            all_headers["idempotency-key"] = idempotency_key or f"sdk_{uuid.uuid4()}"
        url = self.url(path, query)
        # A long-poll (?wait=N) is allowed its wait on top of the timeout.
        wait = (query or {}).get("wait")
        timeout = self.timeout + (float(wait) if isinstance(wait, (int, float)) else 0.0)
        attempt = 0
        while True:
            last = attempt >= self.max_retries
            try:
                raw = self.open(method, url, all_headers, data, timeout)
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                if last:
                    raise
                time.sleep(retry_delay(attempt))
                attempt += 1
                continue
            status = raw.getcode()
            if 200 <= status < 300 and stream:
                return raw, None
            try:
                payload = raw.read()
            except (ConnectionError, TimeoutError, OSError):
                # The connection broke mid-answer: a POST's Idempotency-Key makes the retry safe.
                if last:
                    raise
                time.sleep(retry_delay(attempt))
                attempt += 1
                continue
            finally:
                raw.close()
            response = Response(status, getattr(raw, "reason", "") or "", dict(raw.headers.items()), payload)
            if last or not _should_retry(response):
                if status >= 400:
                    raise error_for(status, response.reason, response.json(), response.headers.get("x-request-id"))
                return None, response
            time.sleep(retry_delay(attempt, response.headers.get("retry-after")))
            attempt += 1


def _should_retry(response: Response) -> bool:
    if response.status in RETRY_STATUSES:
        return True
    if response.status != 409:
        return False
    body = response.json()
    return isinstance(body, dict) and body.get("code") == "idempotency_in_progress"


class _SyncBase:
    """What the generated Operations call: one request, its lines, or the event stream."""

    _transport: Transport

    def _request(self, method: str, path: str, *, expect: str = "json", **options: Any) -> Any:
        _, response = self._transport.send(method, path, **options)
        assert response is not None
        if expect == "bytes":
            return response.body
        return response.json() if response.body else None

    def _request_lines(self, method: str, path: str, **options: Any) -> Iterator[Any]:
        raw, _ = self._transport.send(method, path, stream=True, **options)
        try:
            for line in raw:
                if line.strip():
                    yield json.loads(line.decode("utf-8"))
        finally:
            raw.close()

    def _stream_events(self, **options: Any) -> Iterator[Any]:
        raise NotImplementedError  # the client provides it (events.py)


class _AsyncBase:
    """What the generated AsyncOperations call: the sync client's method in a worker thread."""

    _sync: Any

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def _iterate(self, make: Callable[[], Iterator[T]]) -> AsyncIterator[T]:
        """A sync iterator pulled item by item in worker threads; closing it (break) closes the sync one."""
        iterator = await asyncio.to_thread(make)
        done = object()
        lock = threading.Lock()

        def pull() -> Any:
            with lock:
                return next(iterator, done)

        try:
            while True:
                item = await asyncio.to_thread(pull)
                if item is done:
                    return
                yield item
        finally:
            closer = getattr(iterator, "close", None)
            if closer is not None:
                try:
                    await asyncio.to_thread(closer)
                except ValueError:
                    pass  # a generator still running in its thread (cancelled mid-pull) ends with it
