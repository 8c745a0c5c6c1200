"""The verifiers on the vectors the TypeScript code made (fixtures/vectors.json; the TS side checks them too)."""

import json
import pathlib
import unittest

from agentdraft import (
    ReceiptVerificationError,
    WebhookVerificationError,
    action_sha256,
    canonical_json,
    ed25519_verify,
    verify_receipt,
    verify_webhook,
)
from agentdraft.receipts import sha256_hex

VECTORS = json.loads((pathlib.Path(__file__).parent / "fixtures" / "vectors.json").read_text("utf-8"))


class WebhookVectors(unittest.TestCase):
    def test_every_vector(self):
        self.assertGreaterEqual(len(VECTORS["webhooks"]), 10)
        for v in VECTORS["webhooks"]:
            with self.subTest(v["name"]):
                options = {"now": v["now"]}
                if "tolerance_seconds" in v:
                    options["tolerance_seconds"] = v["tolerance_seconds"]
                if v["valid"]:
                    self.assertEqual(verify_webhook(v["body"], v["headers"], v["secret"], **options), json.loads(v["body"]))
                    self.assertEqual(verify_webhook(v["body"].encode("utf-8"), v["headers"], v["secret"], **options)["id"], "whm_1")
                else:
                    with self.assertRaises(WebhookVerificationError):
                        verify_webhook(v["body"], v["headers"], v["secret"], **options)

    def test_messages_say_what_failed(self):
        signed = VECTORS["webhooks"][0]
        with self.assertRaisesRegex(WebhookVerificationError, "more than 300 s from now"):
            verify_webhook(signed["body"], signed["headers"], signed["secret"], now=signed["now"] + 301)
        with self.assertRaisesRegex(WebhookVerificationError, "No webhook-signature matches"):
            verify_webhook(signed["body"] + " ", signed["headers"], signed["secret"], now=signed["now"])
        with self.assertRaisesRegex(WebhookVerificationError, "whsec_"):
            verify_webhook(signed["body"], signed["headers"], "not-a-secret!", now=signed["now"])
        with self.assertRaisesRegex(WebhookVerificationError, "Missing"):
            verify_webhook(signed["body"], {}, signed["secret"], now=signed["now"])


class Ed25519Vectors(unittest.TestCase):
    def test_rfc8032_and_tampered(self):
        for v in VECTORS["ed25519"]:
            with self.subTest(v["name"]):
                ok = ed25519_verify(bytes.fromhex(v["public_key"]), bytes.fromhex(v["message"]), bytes.fromhex(v["signature"]))
                self.assertIs(ok, v["valid"])

    def test_wrong_lengths_are_false(self):
        self.assertFalse(ed25519_verify(b"\x00" * 31, b"", b"\x00" * 64))
        self.assertFalse(ed25519_verify(b"\x00" * 32, b"", b"\x00" * 63))


class ReceiptVectors(unittest.TestCase):
    def test_every_vector(self):
        for v in VECTORS["receipts"]:
            with self.subTest(v["name"]):
                if v["valid"]:
                    payload = verify_receipt(v["receipt"], v["jwks"], v["workspace_id"])
                    self.assertEqual(payload["workspace_id"], v["workspace_id"])
                else:
                    with self.assertRaises(ReceiptVerificationError):
                        verify_receipt(v["receipt"], v["jwks"], v["workspace_id"])

    def test_the_receipt_binds_the_action(self):
        v = VECTORS["receipts"][0]
        payload = verify_receipt(v["receipt"], v["jwks"], v["workspace_id"])
        self.assertEqual(payload["status"], "approved")
        self.assertEqual(action_sha256(VECTORS["receipt_action"]["action"]), payload["action_sha256"])
        self.assertEqual(VECTORS["receipt_action"]["action_sha256"], payload["action_sha256"])
        self.assertNotEqual(action_sha256({**VECTORS["receipt_action"]["action"], "amount": 121}), payload["action_sha256"])


class CanonicalJsonVectors(unittest.TestCase):
    def test_same_text_and_hash_as_the_server(self):
        for c in VECTORS["canonical_json"]:
            with self.subTest(c["canonical"][:40]):
                self.assertEqual(canonical_json(c["value"]), c["canonical"])
                self.assertEqual(sha256_hex(canonical_json(c["value"])), c["sha256"])

    def test_floats_that_are_integers_write_as_javascript_does(self):
        self.assertEqual(canonical_json({"b": 1.0, "a": [2.50, 1e-7, 1e21]}), '{"a":[2.5,1e-7,1e+21],"b":1}')


if __name__ == "__main__":
    unittest.main()
