"""The async client: every operation as a coroutine.

It wraps the sync client and runs each call in a worker thread (``asyncio.to_thread``): the
standard library has no async HTTP client, and this package depends on nothing else. Calls run
concurrently (one thread each, from the default executor); the event stream and page iterators
are async iterators over the sync ones.
"""

from datetime import datetime
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Mapping, Optional, Sequence, TypeVar, Union

from ._operations import AsyncOperations
from .client import AgentDraft
from .errors import ApprovalNotGrantedError

T = TypeVar("T")


class AsyncAgentDraft(AsyncOperations):
    """``await client.place_hold(calendar_id, {...})``: the same operations, options and errors as AgentDraft."""

    def __init__(
        self,
        api_key: str,
        base_url: str = "http://localhost:3000",
        *,
        trace_id: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
    ):
        self._sync = AgentDraft(api_key, base_url, trace_id=trace_id, max_retries=max_retries, timeout=timeout)

    @property
    def sync(self) -> AgentDraft:
        """The sync client underneath (for handoffs' work loop, leases and claims, in a thread)."""
        return self._sync

    def with_trace(self, trace_id: str) -> "AsyncAgentDraft":
        client = AsyncAgentDraft.__new__(AsyncAgentDraft)
        client._sync = self._sync.with_trace(trace_id)
        return client

    def events(
        self,
        *,
        types: Optional[Union[str, Sequence[str]]] = None,
        last_event_id: Optional[str] = None,
        since: Optional[Union[str, datetime]] = None,
    ) -> AsyncIterator[Dict[str, Any]]:
        """``async for event in client.events(...)``: reconnects with Last-Event-ID; ``break`` closes the connection."""
        return self._iterate(lambda: self._sync.events(types=types, last_event_id=last_event_id, since=since))

    async def wait_for_approval(self, id: str, *, timeout: float = 600.0) -> Dict[str, Any]:
        return await self._run(self._sync.wait_for_approval, id, timeout=timeout)

    async def with_approval(self, request: Mapping[str, Any], fn: Callable[[Dict[str, Any]], Awaitable[T]], *, timeout: float = 600.0) -> T:
        """Asks, waits, spends the approval on ``request["action"]``, then awaits ``fn(approval)``."""
        asked = await self.request_approval(dict(request))  # type: ignore[arg-type]
        decided = await self.wait_for_approval(asked["id"], timeout=timeout)
        if decided["status"] != "approved":
            raise ApprovalNotGrantedError(decided)
        spent = await self.consume_approval(asked["id"], {"action": request["action"]})
        return await fn(spent)  # type: ignore[arg-type]

    async def verify_receipt(self, receipt: str, workspace_id: Optional[str] = None) -> Dict[str, Any]:
        return await self._run(self._sync.verify_receipt, receipt, workspace_id)


__all__ = ["AsyncAgentDraft"]
