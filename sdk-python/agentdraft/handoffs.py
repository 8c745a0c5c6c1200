"""Handoffs between agents: send, and work the ones sent to your agent (claim, heartbeat, complete or fail)."""

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Generic, Optional, TypeVar

from .errors import AgentDraftError, PermanentFailure

if TYPE_CHECKING:
    from .client import AgentDraft

R = TypeVar("R")
SKIP = frozenset({"handoff_claimed", "handoff_not_pending"})


@dataclass
class WorkContext:
    """What a work function gets besides the handoff."""

    #: A client on the handoff's trace: calls made with it (mail, holds, notes) join the handoff's trace.
    client: "AgentDraft"
    #: Set when the claim is lost (a heartbeat was refused): stop, another worker has it.
    lost: threading.Event


@dataclass
class WorkResult(Generic[R]):
    """One handoff worked: its claim, and what the function returned or raised."""

    handoff: Dict[str, Any]
    result: Optional[R] = None
    error: Optional[BaseException] = None


WorkFn = Callable[[Dict[str, Any], WorkContext], R]


class Handoffs:
    """``client.handoffs``: send work to another agent, and work the handoffs sent to yours."""

    def __init__(self, client: "AgentDraft"):
        self._client = client

    def send(self, body: Dict[str, Any], *, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """Hands work to another agent; give an idempotency_key (your task id) so a retry is the same handoff."""
        return self._client.create_handoff(body, idempotency_key=idempotency_key)  # type: ignore[arg-type,return-value]

    def _claim_next(self, type: str, ttl_seconds: int, worker: Optional[str], agent_id: Optional[str]) -> Optional[Dict[str, Any]]:
        page = self._client.list_handoffs(status="pending", type=type, role="received", agent_id=agent_id, limit=100)
        for handoff in reversed(page["data"]):
            try:
                return self._client.claim_handoff(handoff["id"], {"ttl_seconds": ttl_seconds, **({"worker": worker} if worker else {})})  # type: ignore[return-value]
            except AgentDraftError as error:
                if error.code not in SKIP:
                    raise
        return None

    def _run(self, handoff: Dict[str, Any], fn: WorkFn[R], ttl_seconds: int) -> WorkResult[R]:
        lost = threading.Event()
        stop = threading.Event()
        client = self._client

        def heartbeat() -> None:
            while not stop.wait(max(0.25, ttl_seconds / 3)):
                try:
                    client.extend_handoff_claim(handoff["id"], {"claim_id": handoff["claim_id"], "ttl_seconds": ttl_seconds})
                except AgentDraftError as error:
                    if error.code == "handoff_claim_lost":
                        lost.set()
                        return
                except OSError:
                    pass  # the next beat tries again

        beat = threading.Thread(target=heartbeat, name=f"agentdraft-heartbeat-{handoff['id']}", daemon=True)
        beat.start()
        try:
            result = fn(handoff, WorkContext(client=client.with_trace(handoff["trace_id"]), lost=lost))
            if lost.is_set():
                return WorkResult(handoff, error=RuntimeError("the claim was lost while working"))
            client.complete_handoff(handoff["id"], {"claim_id": handoff["claim_id"], "result": result})
            return WorkResult(handoff, result=result)
        except AgentDraftError as error:
            if error.code == "handoff_claim_lost":
                return WorkResult(handoff, error=error)
            self._fail(handoff, error, lost)
            return WorkResult(handoff, error=error)
        except Exception as error:  # noqa: BLE001 - the work function's failure fails the handoff
            self._fail(handoff, error, lost)
            return WorkResult(handoff, error=error)
        finally:
            stop.set()
            beat.join()

    def _fail(self, handoff: Dict[str, Any], error: BaseException, lost: threading.Event) -> None:
        if lost.is_set():
            return
        permanent = isinstance(error, PermanentFailure)
        body: Dict[str, Any] = {"claim_id": handoff["claim_id"], "error": (str(error) or "failed")[:2000], "retry": not permanent}
        if permanent and error.details is not None:  # type: ignore[union-attr]
            body["details"] = error.details  # type: ignore[union-attr]
        try:
            self._client.fail_handoff(handoff["id"], body)  # type: ignore[arg-type]
        except (AgentDraftError, OSError):
            pass  # the claim expires and the handoff goes back to pending

    def work_once(
        self,
        type: str,
        fn: WorkFn[R],
        *,
        ttl_seconds: int = 60,
        worker: Optional[str] = None,
        agent_id: Optional[str] = None,
    ) -> Optional[WorkResult[R]]:
        """Claims the oldest pending handoff of ``type`` and works it: ``fn(handoff, ctx)`` runs while a
        thread heartbeats the claim (every third of ``ttl_seconds``); its return value completes the
        handoff, an exception fails it (retried while attempts remain; PermanentFailure: dead at once).
        None when nothing waits."""
        handoff = self._claim_next(type, ttl_seconds, worker, agent_id)
        return self._run(handoff, fn, ttl_seconds) if handoff else None

    def work(
        self,
        type: str,
        fn: WorkFn[R],
        *,
        ttl_seconds: int = 60,
        worker: Optional[str] = None,
        agent_id: Optional[str] = None,
        poll_seconds: float = 1.0,
        stop: Optional[threading.Event] = None,
    ) -> None:
        """Works handoffs of ``type`` one after another until ``stop`` is set (checked between handoffs)."""
        stop = stop or threading.Event()
        while not stop.is_set():
            handoff = self._claim_next(type, ttl_seconds, worker, agent_id)
            if handoff:
                self._run(handoff, fn, ttl_seconds)
            else:
                stop.wait(poll_seconds)


class Audit:
    """``client.audit``: agent notes, why the agent acted, in the audit trail."""

    def __init__(self, client: "AgentDraft"):
        self._client = client

    def note(self, body: Dict[str, Any]) -> Dict[str, Any]:
        return self._client.add_agent_note(body)  # type: ignore[arg-type,return-value]
