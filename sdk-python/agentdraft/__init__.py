"""AgentDraft's Python SDK: a client generated from the API's OpenAPI document, and verifiers.

Standard library only (Python 3.11+): see docs/python-sdk.md.
"""

from ._base import api_base_url
from ._operations import OPERATION_COUNT
from .aio import AsyncAgentDraft
from .client import APPROVAL_HEADER, AgentDraft, HeldLease
from .errors import (
    AgentDraftError,
    ApprovalNotGrantedError,
    PermanentFailure,
    ReceiptVerificationError,
    WebhookVerificationError,
)
from .events import EventStream
from .handoffs import WorkContext, WorkResult
from .receipts import RECEIPT_TYPE, action_sha256, canonical_json, ed25519_verify, verify_receipt
from .webhooks import verify_webhook

__version__ = "0.1.0"

__all__ = [
    "APPROVAL_HEADER",
    "OPERATION_COUNT",
    "RECEIPT_TYPE",
    "AgentDraft",
    "AgentDraftError",
    "ApprovalNotGrantedError",
    "AsyncAgentDraft",
    "EventStream",
    "HeldLease",
    "PermanentFailure",
    "ReceiptVerificationError",
    "WebhookVerificationError",
    "WorkContext",
    "WorkResult",
    "action_sha256",
    "api_base_url",
    "canonical_json",
    "ed25519_verify",
    "verify_receipt",
    "verify_webhook",
]
