"""The transport against a scripted loopback server: retries, Retry-After, Idempotency-Keys, problems, SSE parsing."""

import json
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agentdraft import AgentDraft, AgentDraftError, ApprovalNotGrantedError, api_base_url
from agentdraft._base import retry_delay
from agentdraft.events import sse_blocks


class Scripted:
    """A loopback server answering each request with the next scripted (status, headers, body)."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self):
                length = int(self.headers.get("content-length") or 0)
                scripted.requests.append({"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": self.rfile.read(length), "at": time.monotonic()})
                status, headers, body = scripted.answers.pop(0)
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                for k, v in {"content-type": "application/problem+json" if status >= 400 else "application/json", **headers}.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def problem(status, code, **extra):
    return {"type": "about:blank", "title": "t", "status": status, "detail": f"{code} happened", "code": code, "request_id": "req_1", **extra}


HOLD = {"object": "hold", "id": "hold_1", "status": "held"}


class Retries(unittest.TestCase):
    def serve(self, answers):
        server = Scripted(answers)
        self.addCleanup(server.close)
        return server, AgentDraft("ad_test_x", server.url, max_retries=2)

    def test_429_then_503_honour_retry_after_and_keep_the_idempotency_key(self):
        server, client = self.serve([
            (429, {"retry-after": "1"}, problem(429, "rate_limited")),
            (503, {"retry-after": "1"}, problem(503, "unavailable")),
            (201, {}, HOLD),
        ])
        hold = client.place_multi_calendar_hold({"calendar_ids": ["cal_1"], "start_time": "2031-01-06T09:00:00Z", "end_time": "2031-01-06T10:00:00Z"})
        self.assertEqual(hold, HOLD)
        self.assertEqual(len(server.requests), 3)
        keys = {r["headers"]["idempotency-key"] for r in server.requests}
        self.assertEqual(len(keys), 1)
        self.assertRegex(keys.pop(), r"^sdk_[0-9a-f-]{36}$")
        self.assertGreaterEqual(server.requests[1]["at"] - server.requests[0]["at"], 0.95)
        self.assertGreaterEqual(server.requests[2]["at"] - server.requests[1]["at"], 0.95)
        self.assertEqual(server.requests[0]["headers"]["authorization"], "Bearer ad_test_x")
        self.assertEqual(server.requests[0]["path"], "/api/v1/holds")

    def test_idempotency_in_progress_is_retried_a_given_key_is_sent(self):
        server, client = self.serve([(409, {"retry-after": "0"}, problem(409, "idempotency_in_progress")), (200, {}, HOLD)])
        client.commit_hold("hold_1", idempotency_key="my-task-7")
        self.assertEqual([r["headers"]["idempotency-key"] for r in server.requests], ["my-task-7", "my-task-7"])

    def test_gives_up_after_max_retries_with_the_problem(self):
        server, client = self.serve([(503, {"retry-after": "0.05"}, problem(503, "unavailable"))] * 3)
        with self.assertRaises(AgentDraftError) as caught:
            client.get_me()
        self.assertEqual((caught.exception.code, caught.exception.status), ("unavailable", 503))
        self.assertEqual(len(server.requests), 3)
        self.assertNotIn("idempotency-key", server.requests[0]["headers"])

    def test_a_refusal_is_not_retried_and_carries_every_problem_member(self):
        server, client = self.serve([(409, {}, problem(409, "hold_conflict", conflicts=[{"type": "hold", "id": "hold_0"}]))])
        with self.assertRaises(AgentDraftError) as caught:
            client.place_hold("cal_1", {"start_time": "2031-01-06T09:00:00Z", "end_time": "2031-01-06T10:00:00Z"})
        error = caught.exception
        self.assertEqual((error.code, error.status, error.request_id, error.detail), ("hold_conflict", 409, "req_1", "hold_conflict happened"))
        self.assertEqual(error.problem["conflicts"], [{"type": "hold", "id": "hold_0"}])
        self.assertEqual(str(error), "hold_conflict: hold_conflict happened")
        self.assertEqual(len(server.requests), 1)

    def test_a_body_that_is_not_a_problem_is_http_error(self):
        server, client = self.serve([(418, {"content-type": "text/plain"}, None)])
        with self.assertRaises(AgentDraftError) as caught:
            client.get_me()
        self.assertEqual((caught.exception.code, caught.exception.status), ("http_error", 418))

    def test_query_and_path_encoding_and_pagination(self):
        page1 = {"object": "list", "data": [{"id": "hold_3"}, {"id": "hold_2"}], "has_more": True}
        page2 = {"object": "list", "data": [{"id": "hold_1"}], "has_more": False}
        server, client = self.serve([(200, {}, page1), (200, {}, page2), (200, {}, {"id": "a/b"})])
        self.assertEqual([h["id"] for h in client.iter_holds(limit=2)], ["hold_3", "hold_2", "hold_1"])
        self.assertEqual(server.requests[0]["path"], "/api/v1/holds?limit=2")
        self.assertEqual(server.requests[1]["path"], "/api/v1/holds?limit=2&starting_after=hold_2")
        client.get_hold("a/b c")
        self.assertEqual(server.requests[2]["path"], "/api/v1/holds/a%2Fb%20c")


class PolicyApproval(unittest.TestCase):
    def test_waits_for_the_approval_the_server_opened_then_calls_once_more_with_its_id(self):
        lease = {"object": "lease", "id": "lse_1", "resource": "deploy:prod"}
        server = Scripted([
            (403, {}, problem(403, "approval_required", approval={"id": "appr_1"})),
            (200, {}, {"object": "approval", "id": "appr_1", "status": "approved"}),
            (201, {}, lease),
        ])
        self.addCleanup(server.close)
        client = AgentDraft("ad_test_x", server.url)
        asked = []
        got = client.with_policy_approval(lambda h: client.acquire_lease({"resource": "deploy:prod", "ttl_seconds": 60}, headers=h), on_approval_required=asked.append)
        self.assertEqual((got, asked), (lease, ["appr_1"]))
        self.assertEqual([r["path"] for r in server.requests], ["/api/v1/leases", "/api/v1/approvals/appr_1?wait=30", "/api/v1/leases"])
        self.assertNotIn("agentdraft-approval-id", server.requests[0]["headers"])
        self.assertEqual(server.requests[2]["headers"]["agentdraft-approval-id"], "appr_1")

    def test_a_denial_raises_and_the_call_is_not_repeated(self):
        server = Scripted([
            (403, {}, problem(403, "approval_required", approval={"id": "appr_2"})),
            (200, {}, {"object": "approval", "id": "appr_2", "status": "denied"}),
        ])
        self.addCleanup(server.close)
        client = AgentDraft("ad_test_x", server.url)
        with self.assertRaises(ApprovalNotGrantedError) as caught:
            client.with_policy_approval(lambda h: client.acquire_lease({"resource": "deploy:db", "ttl_seconds": 60}, headers=h))
        self.assertEqual(caught.exception.approval["status"], "denied")
        self.assertEqual(len(server.requests), 2)


class Helpers(unittest.TestCase):
    def test_api_base_url(self):
        self.assertEqual(api_base_url("https://agentdraft.example.com/"), "https://agentdraft.example.com/api")
        self.assertEqual(api_base_url("https://agentdraft.example.com/api"), "https://agentdraft.example.com/api")
        self.assertEqual(api_base_url(), "http://localhost:3000/api")

    def test_retry_delay(self):
        self.assertEqual(retry_delay(0, "3"), 3.0)
        self.assertEqual(retry_delay(0, "120"), 30.0)
        for attempt in range(6):
            self.assertLessEqual(retry_delay(attempt, "soon"), 8.0 * 1.25)
        self.assertGreaterEqual(retry_delay(1), 0.5 * 0.75)

    def test_sse_blocks(self):
        raw = b": hi\n\nid: 7\nevent: hold.created\ndata: {\"a\":\ndata: 1}\n\nretry: 500\n\nid: 8\r\ndata:{}\r\n\r\n"
        blocks = list(sse_blocks(iter(raw.splitlines(keepends=True))))
        self.assertEqual(blocks, [{"id": "7", "data": '{"a":\n1}'}, {"retry": 500}, {"id": "8", "data": "{}"}])

    def test_an_api_key_is_required(self):
        with self.assertRaisesRegex(ValueError, "api_key is required"):
            AgentDraft("")


if __name__ == "__main__":
    unittest.main()
