"""Approval receipts: compact JWS (EdDSA, Ed25519) verified against the workspace's JWK Set.

Ed25519 verification is written out here (RFC 8032, section 5.1.7) because the standard
library has none and this package depends on nothing else. It only verifies: public data, so
constant time does not matter. Checked against RFC 8032's test vectors and receipts signed by
the server's own code (tests/fixtures/vectors.json, tests/test_vectors.py).
"""

import base64
import hashlib
import json
import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .errors import ReceiptVerificationError

RECEIPT_TYPE = "agentdraft-approval-receipt+jws"

# --- Ed25519 (RFC 8032) -------------------------------------------------------------------------

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)
Point = Tuple[int, int, int, int]  # extended homogeneous coordinates (X, Y, Z, T)


def _add(p: Point, q: Point) -> Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(s: int, p: Point) -> Point:
    q: Point = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _equal(p: Point, q: Point) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


def _recover_x(y: int, sign: int) -> Optional[int]:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _decompress(data: bytes) -> Optional[Point]:
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


_GY = 4 * pow(5, _P - 2, _P) % _P
_GX = _recover_x(_GY, 0) or 0
_G: Point = (_GX, _GY, 1, _GX * _GY % _P)


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True when ``signature`` is ``public_key``'s Ed25519 signature of ``message`` (RFC 8032)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decompress(public_key)
    r = _decompress(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    return _equal(_mul(s, _G), _add(r, _mul(h, a)))


# --- JWS ----------------------------------------------------------------------------------------


def _b64url(value: str) -> bytes:
    if not value or any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in value):
        raise ReceiptVerificationError("The receipt is not a compact JWS (base64url parts).")
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def verify_jws(token: str, jwks: Mapping[str, Any], typ: str) -> Tuple[Dict[str, Any], bytes]:
    """Verifies a compact EdDSA JWS against a JWK Set: its protected header, and its payload bytes."""
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        raise ReceiptVerificationError("The receipt is not a compact JWS (three dot-separated parts).")
    try:
        header = json.loads(_b64url(parts[0]).decode("utf-8"))
    except ValueError as bad:
        raise ReceiptVerificationError("The receipt's protected header is not JSON.") from bad
    if not isinstance(header, dict) or header.get("alg") != "EdDSA":
        raise ReceiptVerificationError("The receipt is not signed with EdDSA.")
    if "crit" in header:
        raise ReceiptVerificationError("The receipt has critical header parameters this verifier does not know.")
    keys: List[Mapping[str, Any]] = [
        k
        for k in jwks.get("keys", [])
        if k.get("kty") == "OKP" and k.get("crv") == "Ed25519" and k.get("use", "sig") == "sig" and k.get("alg", "EdDSA") == "EdDSA"
        and ("kid" not in header or k.get("kid") == header["kid"])
    ]
    if not keys:
        raise ReceiptVerificationError("No key of the workspace's key set matches the receipt's kid.")
    signing_input = f"{parts[0]}.{parts[1]}".encode("ascii")
    signature = _b64url(parts[2])
    if not any(ed25519_verify(_b64url(str(k.get("x", ""))), signing_input, signature) for k in keys):
        raise ReceiptVerificationError("The receipt's signature does not verify: it was changed, or signed by another key.")
    if header.get("typ") != typ:
        raise ReceiptVerificationError(f"Not an approval receipt (typ {header.get('typ')!r}).")
    return header, _b64url(parts[1])


def verify_receipt(receipt: str, jwks: Mapping[str, Any], workspace_id: str) -> Dict[str, Any]:
    """Verifies an approval receipt as a downstream system should: against the key set of the
    workspace it trusts (/.well-known/jwks.json?workspace_id=...), then that the payload names that
    workspace. Returns the payload (check ``status`` and ``action_sha256``); raises ReceiptVerificationError."""
    _, payload = verify_jws(receipt, jwks, RECEIPT_TYPE)
    try:
        body = json.loads(payload.decode("utf-8"))
    except ValueError as bad:
        raise ReceiptVerificationError("The receipt's payload is not JSON.") from bad
    if not isinstance(body, dict) or body.get("workspace_id") != workspace_id:
        raise ReceiptVerificationError("The receipt is of another workspace.")
    return body


# --- canonical JSON (the hashes a receipt binds) -------------------------------------------------


def _js_number(value: float) -> str:
    """A number as JavaScript's JSON.stringify writes it (ECMAScript Number::toString): the same
    shortest digits as Python's repr, placed as JS places them (1.0 → 1, 1e-07 → 1e-7, 1e21 → 1e+21)."""
    if not math.isfinite(value):
        raise ValueError("canonical_json: non-finite number")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = 0.<digits> × 10^n
    shift = int(exponent) if exponent else 0
    if whole.strip("0"):
        n = len(whole.lstrip("0")) + shift
    else:
        n = shift - (len(fraction) - len(fraction.lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{head}e{'+' if e >= 0 else '-'}{abs(e)}"


def canonical_json(value: Any) -> str:
    """Canonical JSON as the server hashes it: keys sorted (by UTF-16 code unit), no whitespace."""
    if value is None or isinstance(value, bool) or isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**21 else _js_number(float(value))
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, Mapping):
        keys = sorted((str(k) for k in value), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{canonical_json(value[k])}" for k in keys) + "}"
    raise TypeError(f"canonical_json: cannot encode {type(value).__name__}")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def action_sha256(action: Mapping[str, Any]) -> str:
    """The ``action_sha256`` a receipt binds for ``action``: compare before acting on a receipt."""
    return sha256_hex(canonical_json(action))


def evidence_sha256(evidence: Any) -> str:
    return sha256_hex(canonical_json(evidence))


def summary_sha256(summary: str) -> str:
    return sha256_hex(summary)
