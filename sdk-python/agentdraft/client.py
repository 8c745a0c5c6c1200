"""The AgentDraft client: the generated operations plus approvals, leases, claims, handoffs, events and receipts."""

import json
import threading
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, TypeVar, Union

from ._base import Transport
from ._operations import Operations
from .errors import AgentDraftError, ApprovalNotGrantedError, error_for
from .events import EventStream
from .handoffs import Audit, Handoffs
from .receipts import verify_receipt

T = TypeVar("T")

#: The header that spends an approval a workspace policy asked for on a gated action (a hold, a lease).
APPROVAL_HEADER = "AgentDraft-Approval-Id"


@dataclass
class HeldLease:
    """A lease held by ``client.lease(...)``: send ``lease["fencing_token"]`` with every write."""

    lease: Dict[str, Any]
    #: Set when a renewal failed: the lease may be lost, stop writing.
    lost: threading.Event


class AgentDraft(Operations):
    """A client for every /api/v1 operation; methods return the response's data or raise AgentDraftError.

    POSTs carry an Idempotency-Key (yours, or ``sdk_<uuid>``), and network errors, 429, 5xx and
    ``idempotency_in_progress`` are retried ``max_retries`` times with backoff, honouring Retry-After.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = "http://localhost:3000",
        *,
        trace_id: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
    ):
        self._transport = Transport(api_key, base_url, trace_id, max_retries, timeout)
        self._options = {"api_key": api_key, "base_url": base_url, "max_retries": max_retries, "timeout": timeout}
        #: Handoffs between agents: send, work (claim, run, complete or fail, heartbeat).
        self.handoffs = Handoffs(self)
        #: Agent notes in the audit trail.
        self.audit = Audit(self)

    @property
    def base_url(self) -> str:
        """The API root, e.g. ``http://localhost:3000/api``."""
        return self._transport.base_url

    def with_trace(self, trace_id: str) -> "AgentDraft":
        """A client whose calls carry ``x-trace-id``: kept on the audit entries and webhooks they cause."""
        client = AgentDraft(trace_id=trace_id, **self._options)  # type: ignore[arg-type]
        client._transport.on_attempt = self._transport.on_attempt
        return client

    # --- events -----------------------------------------------------------------------------

    def events(
        self,
        *,
        types: Optional[Union[str, Sequence[str]]] = None,
        last_event_id: Optional[str] = None,
        since: Optional[Union[str, datetime]] = None,
    ) -> EventStream:
        """The workspace's events live (GET /v1/events), reconnecting with Last-Event-ID whenever a
        connection ends: ``for event in client.events(types=["hold.created"]): ...``."""
        return EventStream(self._transport, types=types, last_event_id=last_event_id, since=since)

    def _stream_events(self, *, types: Any = None, since: Any = None, after: Any = None, headers: Any = None) -> EventStream:
        return EventStream(self._transport, types=types, since=since, after=after, headers=headers)

    # --- approvals ----------------------------------------------------------------------------

    def wait_for_approval(self, id: str, *, timeout: float = 600.0) -> Dict[str, Any]:
        """Waits for people to decide (long-polling GET /v1/approvals/{id}?wait=30) and returns the
        approval once it is no longer pending, or, after ``timeout`` seconds, still pending."""
        deadline = time.monotonic() + timeout
        while True:
            wait = max(0, min(30, int(-(-(deadline - time.monotonic()) // 1))))
            approval: Dict[str, Any] = self.get_approval(id, wait=wait)  # type: ignore[assignment]
            if approval["status"] != "pending" or time.monotonic() >= deadline:
                return approval

    def with_approval(self, request: Mapping[str, Any], fn: Callable[[Dict[str, Any]], T], *, timeout: float = 600.0) -> T:
        """Runs ``fn`` only with a person's approval of exactly ``request["action"]``: asks, waits,
        spends the approval on that action (once), then calls ``fn(approval)``. Not approved in time,
        or already spent: raises, and ``fn`` never runs."""
        asked = self.request_approval(dict(request))  # type: ignore[arg-type]
        decided = self.wait_for_approval(asked["id"], timeout=timeout)
        if decided["status"] != "approved":
            raise ApprovalNotGrantedError(decided)
        spent = self.consume_approval(asked["id"], {"action": request["action"]})
        return fn(spent)  # type: ignore[arg-type]

    def with_policy_approval(
        self,
        call: Callable[[Dict[str, str]], T],
        *,
        timeout: float = 600.0,
        on_approval_required: Optional[Callable[[str], None]] = None,
    ) -> T:
        """Makes a call a workspace policy may gate: on 403 ``approval_required`` waits for the approval
        the server opened, then makes the same call once more with AgentDraft-Approval-Id, which spends
        it on exactly that action. ``call(headers)`` passes the headers on:

            lease = client.with_policy_approval(lambda h: client.acquire_lease(body, headers=h))
        """
        try:
            return call({})
        except AgentDraftError as refused:
            approval = refused.problem.get("approval") or {}
            if refused.status != 403 or refused.code != "approval_required" or not approval.get("id"):
                raise
            approval_id = approval["id"]
        if on_approval_required:
            on_approval_required(approval_id)
        decided = self.wait_for_approval(approval_id, timeout=timeout)
        if decided["status"] != "approved":
            raise ApprovalNotGrantedError(decided)
        return call({APPROVAL_HEADER: approval_id})

    # --- leases and claims --------------------------------------------------------------------

    @contextmanager
    def lease(
        self,
        resource: str,
        ttl_seconds: int,
        *,
        priority: Optional[int] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        renew_every: Optional[float] = None,
    ) -> Iterator[HeldLease]:
        """Holds an exclusive lease on ``resource`` for the ``with`` block, renewing it in a thread and
        releasing it afterwards. Raises AgentDraftError ``lease_conflict`` when another lease is live."""
        body: Dict[str, Any] = {"resource": resource, "ttl_seconds": ttl_seconds}
        if priority is not None:
            body["priority"] = priority
        if metadata is not None:
            body["metadata"] = dict(metadata)
        lease: Dict[str, Any] = self.acquire_lease(body)  # type: ignore[arg-type,assignment]
        lost, stop = threading.Event(), threading.Event()
        every = renew_every if renew_every is not None else max(0.25, ttl_seconds / 3)

        def renew() -> None:
            while not stop.wait(every):
                try:
                    self.renew_lease(lease["id"], {})
                except (AgentDraftError, OSError):
                    lost.set()
                    return

        renewer = threading.Thread(target=renew, name=f"agentdraft-lease-{lease['id']}", daemon=True)
        renewer.start()
        try:
            yield HeldLease(lease, lost)
        finally:
            stop.set()
            renewer.join()
            if not lost.is_set():
                try:
                    self.release_lease(lease["id"])
                except (AgentDraftError, OSError):
                    pass  # it expires at its TTL

    @contextmanager
    def claim(self, message_id: str, ttl_seconds: int, *, worker: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """Handles a received message exclusively: the ``with`` block runs holding the claim, then the
        message is marked completed, or released for another worker if the block raises. Raises
        AgentDraftError ``message_claimed`` / ``message_completed`` when it is not this worker's."""
        body: Dict[str, Any] = {"ttl_seconds": ttl_seconds, **({"worker": worker} if worker else {})}
        claim: Dict[str, Any] = self.claim_message(message_id, body)  # type: ignore[arg-type,assignment]
        try:
            yield claim
        except BaseException:
            try:
                self.release_message_claim(message_id, {"claim_id": claim["id"]})
            except (AgentDraftError, OSError):
                pass
            raise
        self.complete_message_claim(message_id, {"claim_id": claim["id"]})

    # --- receipts -----------------------------------------------------------------------------

    def jwks(self, workspace_id: str) -> Dict[str, Any]:
        """The workspace's public keys that sign approval receipts (/.well-known/jwks.json)."""
        origin = self._transport.base_url[: -len("/api")]
        url = f"{origin}/.well-known/jwks.json?{urllib.parse.urlencode({'workspace_id': workspace_id})}"
        response = self._transport.open("GET", url, {"accept": "application/json"}, None, self._transport.timeout)
        with response:
            body = response.read()
            if response.getcode() != 200:
                try:
                    problem = json.loads(body.decode("utf-8"))
                except ValueError:
                    problem = None
                raise error_for(response.getcode(), getattr(response, "reason", ""), problem, response.headers.get("x-request-id"))
        return json.loads(body.decode("utf-8"))

    def verify_receipt(self, receipt: str, workspace_id: Optional[str] = None) -> Dict[str, Any]:
        """Verifies an approval receipt against the workspace's keys (this key's workspace by default)
        and returns its payload; raises ReceiptVerificationError."""
        workspace = workspace_id or self.get_me()["workspace"]["id"]
        return verify_receipt(receipt, self.jwks(workspace), workspace)
