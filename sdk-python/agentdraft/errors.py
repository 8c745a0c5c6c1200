"""The SDK's exceptions: every API refusal is an AgentDraftError carrying the problem's fields."""

from typing import Any, Dict, List, Mapping, Optional


class AgentDraftError(Exception):
    """An API call that failed: the RFC 9457 problem document the server answered.

    ``code`` is the stable machine code (``hold_conflict``, ``validation_failed``, ``not_found``...),
    ``errors`` one entry per bad field for ``validation_failed``, and ``problem`` the whole
    document with every extra member (``conflicts``, ``approval``, ``head``...).
    """

    def __init__(self, problem: Mapping[str, Any]):
        self.problem: Dict[str, Any] = dict(problem)
        self.code: str = str(problem.get("code", "http_error"))
        self.status: int = int(problem.get("status", 0))
        self.title: str = str(problem.get("title", ""))
        self.detail: str = str(problem.get("detail", ""))
        self.type: str = str(problem.get("type", "about:blank"))
        self.request_id: Optional[str] = problem.get("request_id")
        self.errors: List[Dict[str, str]] = list(problem.get("errors") or [])
        super().__init__(f"{self.code}: {self.detail}")


def is_problem(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("code"), str) and isinstance(value.get("status"), int)


def error_for(status: int, reason: str, body: Any, request_id: Optional[str]) -> AgentDraftError:
    """The error of a failed call; a body that is not a problem (a proxy's page) gets code ``http_error``."""
    if is_problem(body):
        return AgentDraftError(body)
    return AgentDraftError(
        {
            "type": "about:blank",
            "title": reason or "HTTP error",
            "status": status,
            "detail": f"The server answered {status} without a problem document.",
            "code": "http_error",
            "request_id": request_id or "",
        }
    )


class ApprovalNotGrantedError(Exception):
    """The approval was not granted (denied, expired, cancelled, or still pending after the wait): the action did not run."""

    def __init__(self, approval: Mapping[str, Any]):
        self.approval = dict(approval)
        super().__init__(f"Approval {approval.get('id')} is {approval.get('status')}: the action was not taken.")


class PermanentFailure(Exception):
    """Raise this from a handoff's work function to fail it without a retry (it is dead at once)."""

    def __init__(self, message: str, details: Optional[Mapping[str, Any]] = None):
        super().__init__(message)
        self.details = dict(details) if details is not None else None


class WebhookVerificationError(Exception):
    """A webhook that must not be trusted: missing headers, a stale timestamp, or no matching signature."""


class ReceiptVerificationError(Exception):
    """An approval receipt that must not be trusted: bad signature, unknown key, wrong type or workspace."""
