"""Standard Webhooks verification (https://www.standardwebhooks.com), as the TypeScript SDK does it."""

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from datetime import datetime
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import WebhookVerificationError

Headers = Mapping[str, Union[str, Sequence[str], None]]


def _header(headers: Headers, name: str) -> Optional[str]:
    # Works for dicts, http.client / email.message headers and WSGI-style mappings alike.
    for key in headers.keys():
        if key.lower() == name:
            value = headers[key]
            if value is None:
                return None
            return value if isinstance(value, str) else " ".join(value)
    return None


def _base64(value: str) -> Optional[bytes]:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _secret_bytes(secret: str) -> bytes:
    key = _base64(secret[6:] if secret.startswith("whsec_") else secret)
    if not key:
        raise WebhookVerificationError("The webhook secret is not a whsec_ base64 secret.")
    return key


def verify_webhook(
    payload: Union[bytes, str],
    headers: Headers,
    secret: Union[str, Sequence[str]],
    *,
    tolerance_seconds: int = 300,
    now: Optional[Union[datetime, float]] = None,
) -> Dict[str, Any]:
    """Verifies a webhook from AgentDraft on its raw body and returns the event.

    Raises WebhookVerificationError for missing headers, a timestamp more than
    ``tolerance_seconds`` from now, or no signature that matches. Pass several secrets to accept
    any of them (while you rotate); during AgentDraft's own rotation the header carries a
    signature per secret and either matches. Use the raw bytes as received: a re-serialized body
    does not verify.
    """
    id_ = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not id_ or not timestamp or not signatures:
        raise WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header.")
    if not re.fullmatch(r"\d{1,12}", timestamp):
        raise WebhookVerificationError("webhook-timestamp is not Unix seconds.")
    current = now.timestamp() if isinstance(now, datetime) else (now if now is not None else time.time())
    if abs(int(current) - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError(f"webhook-timestamp is more than {tolerance_seconds} s from now: a replay, or a wrong clock.")

    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    content = f"{id_}.{timestamp}.".encode("utf-8") + body
    candidates: List[bytes] = []
    for part in signatures.split(" "):
        version, _, value = part.strip().partition(",")
        decoded = _base64(value) if version == "v1" and value else None
        if decoded is not None:
            candidates.append(decoded)

    matched = False
    for s in [secret] if isinstance(secret, str) else list(secret):
        expected = hmac.new(_secret_bytes(s), content, hashlib.sha256).digest()
        # Check every candidate, so timing does not depend on which one matched.
        for candidate in candidates:
            matched = hmac.compare_digest(expected, candidate) or matched
    if not matched:
        raise WebhookVerificationError("No webhook-signature matches: wrong secret, or the body was changed.")
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError as bad:
        raise WebhookVerificationError("The webhook body is not JSON.") from bad
