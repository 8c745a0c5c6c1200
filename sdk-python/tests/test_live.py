"""The client against a real AgentDraft server.

sdk-python/python-sdk.db.test.ts starts the API, makes a workspace with agents and keys, plays
the person who decides approvals ("[deny]" in a summary is denied, the rest approved), and runs
these tests with AGENTDRAFT_TEST_* in the environment. Without them these tests are skipped.
"""

import asyncio
import importlib.util
import os
import pathlib
import threading
import time
import unittest
import uuid
from datetime import datetime, timedelta, timezone

from agentdraft import (
    AgentDraft,
    AgentDraftError,
    ApprovalNotGrantedError,
    AsyncAgentDraft,
    PermanentFailure,
    ReceiptVerificationError,
    action_sha256,
)

ENV = os.environ
BASE_URL = ENV.get("AGENTDRAFT_TEST_BASE_URL")
live = unittest.skipUnless(BASE_URL, "needs a server: AGENTDRAFT_TEST_BASE_URL (run by sdk-python/python-sdk.db.test.ts)")

_day = [0]


def slot(hours: int = 1):
    """A fresh slot each call (a day of its own in 2031), as ISO strings."""
    _day[0] += 1
    start = datetime(2031, 1, 1, 9, tzinfo=timezone.utc) + timedelta(days=_day[0] + (os.getpid() % 50) * 100)
    return start.isoformat().replace("+00:00", "Z"), (start + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")


def client(key: str = "AGENTDRAFT_TEST_KEY", **options) -> AgentDraft:
    return AgentDraft(ENV[key], BASE_URL, **options)


def new_calendar() -> str:
    return client("AGENTDRAFT_TEST_ADMIN_KEY").create_calendar({"name": f"Staging {uuid.uuid4().hex[:8]}"})["id"]


@live
class Calls(unittest.TestCase):
    def test_first_hold_typed_data_and_trace(self):
        calendar = new_calendar()
        trace = f"trace-py-{uuid.uuid4().hex[:8]}"
        agent = client(trace_id=trace)
        me = agent.get_me()
        self.assertEqual(me["object"], "me")
        self.assertEqual(me["workspace"]["id"], ENV["AGENTDRAFT_TEST_WORKSPACE_ID"])
        start, end = slot(2)
        hold = agent.place_hold(calendar, {"start_time": start, "end_time": end, "priority": 70, "hold_ttl_seconds": 60})
        self.assertEqual((hold["object"], hold["status"], hold["priority"], hold["agent_id"]), ("hold", "held", 70, me["agent"]["id"]))
        committed = agent.commit_hold(hold["id"])
        self.assertEqual(committed["status"], "committed")
        self.assertEqual(len(committed["event_ids"]), 1)
        audit = agent.list_audit_entries(trace_id=trace)
        self.assertEqual(sorted(e["action"] for e in audit["data"]), ["hold.committed", "hold.created"])

    def test_idempotency_key_replays_and_a_mismatch_is_422(self):
        calendar = new_calendar()
        agent = client()
        start, end = slot()
        key = f"first-hold-{uuid.uuid4().hex}"
        body = {"calendar_ids": [calendar], "start_time": start, "end_time": end, "priority": 60}
        first = agent.place_multi_calendar_hold(body, idempotency_key=key)
        again = agent.place_multi_calendar_hold(body, idempotency_key=key)
        self.assertEqual(again["id"], first["id"])
        with self.assertRaises(AgentDraftError) as caught:
            agent.place_multi_calendar_hold({**body, "priority": 61}, idempotency_key=key)
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "idempotency_mismatch"))

    def test_a_post_whose_answer_was_lost_is_retried_with_its_key_and_acts_once(self):
        calendar = new_calendar()
        agent = client()
        transport = agent._transport
        real_open = transport.open
        sent = []
        lost = [True]

        def open_losing_the_first_answer(method, url, headers, data, timeout):
            sent.append(headers.get("idempotency-key"))
            response = real_open(method, url, headers, data, timeout)
            if lost[0]:
                lost[0] = False
                response.read()
                response.close()
                raise ConnectionResetError("connection reset after the server answered")
            return response

        transport.open = open_losing_the_first_answer
        start, end = slot()
        hold = agent.place_multi_calendar_hold({"calendar_ids": [calendar], "start_time": start, "end_time": end})
        self.assertEqual(len(sent), 2)
        self.assertRegex(sent[0], r"^sdk_")
        self.assertEqual(sent[1], sent[0])
        holds = list(client("AGENTDRAFT_TEST_ADMIN_KEY").iter_holds(calendar_id=calendar))
        self.assertEqual([h["id"] for h in holds], [hold["id"]])

    def test_problems_are_agentdraft_errors_with_every_member(self):
        calendar = new_calendar()
        agent = client()
        start, end = slot()
        agent.place_hold(calendar, {"start_time": start, "end_time": end, "priority": 50})
        with self.assertRaises(AgentDraftError) as caught:
            agent.place_hold(calendar, {"start_time": start, "end_time": end, "priority": 50})
        conflict = caught.exception
        self.assertEqual((conflict.code, conflict.status), ("hold_conflict", 409))
        self.assertRegex(conflict.request_id, r"^req")
        self.assertEqual(conflict.problem["conflicts"][0]["type"], "hold")
        with self.assertRaises(AgentDraftError) as caught:
            agent.place_hold(calendar, {"start_time": end, "end_time": start})
        self.assertEqual(caught.exception.code, "validation_failed")
        self.assertIn({"field": "end_time", "message": "end_time must be after start_time"}, caught.exception.errors)
        with self.assertRaises(AgentDraftError) as caught:
            agent.get_hold("hold_missing")
        self.assertEqual(caught.exception.code, "not_found")
        with self.assertRaises(AgentDraftError) as caught:
            AgentDraft("ad_live_" + "x" * 43, BASE_URL).get_me()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthorized"))

    def test_pages_iterate_across_cursors(self):
        admin = client("AGENTDRAFT_TEST_ADMIN_KEY")
        made = [admin.create_calendar({"name": f"Page {i} {uuid.uuid4().hex[:6]}"})["id"] for i in range(5)]
        first = admin.list_calendars(limit=2)
        self.assertEqual(len(first["data"]), 2)
        self.assertTrue(first["has_more"])
        seen = [c["id"] for c in admin.iter_calendars(limit=2)]
        self.assertEqual(len(seen), len(set(seen)))
        self.assertEqual([c for c in seen if c in made], list(reversed(made)))  # newest first

    def test_leases_and_fencing(self):
        agent = client()
        resource = f"deploy:py-{uuid.uuid4().hex[:8]}"
        with agent.lease(resource, ttl_seconds=3, priority=50) as held:
            self.assertTrue(held.lease["fencing_token"])
            with self.assertRaises(AgentDraftError) as caught:
                client("AGENTDRAFT_TEST_WRITER_KEY").acquire_lease({"resource": resource, "ttl_seconds": 30, "priority": 50})
            self.assertEqual(caught.exception.code, "lease_conflict")
            time.sleep(3.5)  # past the TTL: only the renewals (every second) keep it
            self.assertFalse(held.lost.is_set())
            self.assertEqual(agent.get_lease(held.lease["id"])["status"], "active")
        self.assertNotEqual(agent.get_lease(held.lease["id"])["status"], "active")


@live
class MailAndWebhooks(unittest.TestCase):
    def test_inbox_drafts_and_a_message_between_inboxes(self):
        agent = client()
        sender = agent.create_inbox({"username": f"py-out-{uuid.uuid4().hex[:8]}"})
        receiver = agent.create_inbox({"username": f"py-in-{uuid.uuid4().hex[:8]}"})
        self.assertEqual(agent.get_inbox(sender["id"])["id"], sender["id"])
        draft = agent.create_draft(sender["id"], {"to": [receiver["address"]], "subject": "Draft", "text": "first"})
        self.assertEqual(agent.update_draft(draft["id"], {"text": "second", "version": draft["version"]})["text"], "second")
        self.assertIn(draft["id"], [d["id"] for d in agent.iter_drafts(sender["id"])])
        self.assertEqual(agent.discard_draft(draft["id"])["status"], "discarded")
        self.assertEqual(agent.get_draft(draft["id"])["status"], "discarded")

        sent = agent.send_message(sender["id"], {"to": [receiver["address"]], "subject": "Staging at 15:00?", "text": "Can we have the cluster at 15:00?"})
        self.assertEqual(sent["object"], "message")
        deadline = time.monotonic() + 15
        received = []
        while not received and time.monotonic() < deadline:
            received = [m for m in agent.iter_messages(receiver["id"]) if m["subject"] == "Staging at 15:00?"]
            time.sleep(0.2)
        self.assertEqual(len(received), 1)
        message = agent.get_message(received[0]["id"])
        self.assertIn("15:00", message["text"])
        source = agent.download_message_source(message["id"])
        self.assertIsInstance(source, bytes)
        self.assertIn(b"Subject: Staging at 15:00?", source)
        with agent.claim(message["id"], ttl_seconds=30, worker="triage-1") as claim:
            self.assertEqual(claim["object"], "message_claim")
            with self.assertRaises(AgentDraftError) as caught:
                agent.claim_message(message["id"], {"ttl_seconds": 30, "worker": "triage-2"})
            self.assertEqual(caught.exception.code, "message_claimed")
        with self.assertRaises(AgentDraftError) as caught:
            agent.claim_message(message["id"], {"ttl_seconds": 30})
        self.assertEqual(caught.exception.code, "message_completed")

    def test_webhook_endpoints_admin(self):
        admin = client("AGENTDRAFT_TEST_ADMIN_KEY")
        created = admin.create_webhook_endpoint({"url": "https://hooks.example.test/py", "event_types": ["hold.created"]})
        self.assertRegex(created["secret"], r"^whsec_")
        self.assertNotIn("secret", admin.get_webhook_endpoint(created["id"]))
        self.assertFalse(admin.update_webhook_endpoint(created["id"], {"enabled": False})["enabled"])
        rotated = admin.rotate_webhook_endpoint_secret(created["id"])
        self.assertNotEqual(rotated["secret"], created["secret"])
        self.assertEqual(admin.list_webhook_deliveries(created["id"])["data"], [])
        self.assertIn(created["id"], [e["id"] for e in admin.iter_webhook_endpoints()])
        self.assertEqual(admin.delete_webhook_endpoint(created["id"])["deleted"], True)


@live
class Approvals(unittest.TestCase):
    def test_wait_for_approval_long_polls_until_a_person_decides(self):
        agent = client()
        approval = agent.request_approval({"summary": "Refund A-1 (20 EUR)", "evidence": {"order": "A-1"}})
        self.assertEqual(approval["status"], "pending")
        decided = agent.wait_for_approval(approval["id"], timeout=30)
        self.assertEqual((decided["id"], decided["status"]), (approval["id"], "approved"))

    def test_with_approval_spends_it_once_and_a_denial_never_runs(self):
        agent = client()
        action = {"type": "refund", "order": 8812, "amount": 120, "currency": "EUR"}
        runs = []
        result = agent.with_approval({"summary": "Refund order 8812", "evidence": {"order": 8812}, "action": action, "action_class": "refund"}, lambda a: runs.append(a) or a, timeout=30)
        self.assertEqual(len(runs), 1)
        self.assertEqual((result["status"], result["consumed"]), ("approved", True))
        with self.assertRaises(AgentDraftError) as caught:
            agent.consume_approval(result["id"], {"action": action})
        self.assertEqual(caught.exception.code, "approval_consumed")
        with self.assertRaises(ApprovalNotGrantedError) as denied:
            agent.with_approval({"summary": "Refund order 9000 [deny]", "evidence": {}, "action": {**action, "order": 9000}}, lambda a: runs.append(a), timeout=30)
        self.assertEqual(denied.exception.approval["status"], "denied")
        self.assertEqual(len(runs), 1)

    def test_the_receipt_verifies_against_the_workspace_keys_and_binds_the_action(self):
        agent = client()
        action = {"type": "refund", "order": 7, "amount": 5, "currency": "EUR"}
        approval = agent.request_approval({"summary": "Refund order 7", "evidence": {"order": 7}, "action": action, "action_class": "refund", "amount": 5, "currency": "EUR"})
        decided = agent.wait_for_approval(approval["id"], timeout=30)
        payload = agent.verify_receipt(decided["receipt"])
        self.assertEqual((payload["approval_id"], payload["status"]), (approval["id"], "approved"))
        self.assertEqual(payload["action_sha256"], action_sha256(action))
        self.assertEqual(payload["action_sha256"], decided["action_sha256"])
        with self.assertRaises(ReceiptVerificationError):
            agent.verify_receipt(decided["receipt"], "ws_someoneelse")
        head, body, signature = decided["receipt"].split(".")
        with self.assertRaises(ReceiptVerificationError):
            agent.verify_receipt(f"{head}.{body}.{signature[:-4]}AAAA")

    def test_the_example_agent_books_with_approval_and_stops_on_a_denial(self):
        path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "approval_agent.py"
        spec = importlib.util.spec_from_file_location("approval_agent", path)
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        calendar = new_calendar()
        agent = client()
        start, end = slot(2)
        committed = example.book_with_approval(agent, calendar, start, end)
        self.assertEqual(committed["status"], "committed")
        start, end = slot(2)
        self.assertIsNone(example.book_with_approval(agent, calendar, start, end, summary="Book it [deny]"))
        released = [h for h in agent.iter_holds(calendar_id=calendar) if h["start_time"].startswith(start[:13])]
        self.assertEqual([h["status"] for h in released], ["released"])


@live
class Events(unittest.TestCase):
    def test_every_event_once_in_order_across_reconnections_and_resume(self):
        agent = client()
        calendar = new_calendar()
        connections = []
        stream_client = client()
        stream_client._transport.on_attempt = lambda method, url, headers: connections.append(headers.get("last-event-id")) if "/v1/events" in url else None
        since = datetime.now(timezone.utc) - timedelta(seconds=1)
        placed = []

        def writer():
            for _ in range(8):
                start, end = slot()
                placed.append(agent.place_hold(calendar, {"start_time": start, "end_time": end, "hold_ttl_seconds": 60})["id"])
                time.sleep(0.5)  # spans several 2-second connections

        thread = threading.Thread(target=writer)
        thread.start()
        received = []
        with stream_client.events(types=["hold.created"], since=since) as stream:
            for event in stream:
                if calendar in event["data"]["hold"]["calendar_ids"]:
                    received.append(event)
                if len(received) == 8:
                    break
        thread.join()
        self.assertEqual([e["data"]["hold"]["id"] for e in received], placed)
        self.assertTrue(all(e["type"] == "hold.created" and e["position"].isdigit() for e in received))
        self.assertGreaterEqual(len(connections), 2)
        self.assertTrue(any(connections[1:]), "a reconnection sends Last-Event-ID")

        resumed = []
        for event in stream_client.events(types=["hold.created"], last_event_id=received[4]["position"]):
            resumed.append(event)
            if len(resumed) == 3:
                break
        self.assertEqual([e["id"] for e in resumed], [e["id"] for e in received[5:8]])

    def test_a_key_that_may_not_stream_raises(self):
        # The writer key has every scope but the stream is fine for it; an invalid key is refused at once.
        with self.assertRaises(AgentDraftError) as caught:
            next(iter(AgentDraft("ad_live_" + "y" * 43, BASE_URL).events()))
        self.assertEqual(caught.exception.code, "unauthorized")


@live
class Handoffs(unittest.TestCase):
    def test_work_claims_heartbeats_and_completes_on_the_trace(self):
        planner, writer = client("AGENTDRAFT_TEST_PLANNER_KEY"), client("AGENTDRAFT_TEST_WRITER_KEY")
        kind = f"draft.reply.{uuid.uuid4().hex[:6]}"
        task = f"plan-{uuid.uuid4().hex[:6]}:draft"
        sent = planner.handoffs.send({"to_agent_id": ENV["AGENTDRAFT_TEST_WRITER_AGENT_ID"], "type": kind, "body": {"topic": "launch"}}, idempotency_key=task)
        self.assertEqual(planner.handoffs.send({"to_agent_id": ENV["AGENTDRAFT_TEST_WRITER_AGENT_ID"], "type": kind, "body": {"topic": "launch"}}, idempotency_key=task)["id"], sent["id"])

        stop = threading.Event()
        seen = []

        def draft(handoff, ctx):
            seen.append(handoff["id"])
            time.sleep(1.3)  # longer than a third of the TTL: a heartbeat keeps the claim
            ctx.client.audit.note({"action": "agent.drafted", "summary": f"Drafted about {handoff['body']['topic']}", "model": {"name": "m", "output_tokens": 42}})
            stop.set()
            return {"draft": "Launch is on."}

        writer.handoffs.work(kind, draft, ttl_seconds=2, worker="writer-1", poll_seconds=0.05, stop=stop)
        self.assertEqual(seen, [sent["id"]])
        done = planner.get_handoff(sent["id"])
        self.assertEqual((done["status"], done["attempt"], done["result"]), ("completed", 1, {"draft": "Launch is on."}))
        timeline = [i["data"].get("action") for i in planner.get_trace(sent["trace_id"])["timeline"]]
        self.assertTrue({"handoff.created", "handoff.claimed", "handoff.completed"} <= set(timeline))
        self.assertIn("agent.drafted", [i["data"].get("action") for i in writer.get_trace(sent["trace_id"])["timeline"]])

    def test_a_raise_retries_a_permanent_failure_is_dead_nothing_pending_is_none(self):
        planner, writer = client("AGENTDRAFT_TEST_PLANNER_KEY"), client("AGENTDRAFT_TEST_WRITER_KEY")
        kind = f"fetch.{uuid.uuid4().hex[:6]}"
        sent = planner.handoffs.send({"to_agent_id": ENV["AGENTDRAFT_TEST_WRITER_AGENT_ID"], "type": kind, "body": {}, "max_attempts": 3})

        def upstream_down(handoff, ctx):
            raise RuntimeError("upstream 503")

        first = writer.handoffs.work_once(kind, upstream_down)
        self.assertIsInstance(first.error, RuntimeError)
        h = planner.get_handoff(sent["id"])
        self.assertEqual((h["status"], h["attempt"], h["last_error"]["message"]), ("pending", 1, "upstream 503"))

        def gone(handoff, ctx):
            raise PermanentFailure("the page is gone", {"http": 410})

        writer.handoffs.work_once(kind, gone)
        h = planner.get_handoff(sent["id"])
        self.assertEqual((h["status"], h["dead_reason"], h["last_error"]["message"], h["last_error"]["details"]), ("dead", "failed", "the page is gone", {"http": 410}))
        self.assertIsNone(writer.handoffs.work_once(kind, lambda h, ctx: 1))


@live
class Async(unittest.TestCase):
    def test_the_async_client_runs_calls_concurrently_and_iterates(self):
        async def scenario():
            agent = AsyncAgentDraft(ENV["AGENTDRAFT_TEST_KEY"], BASE_URL)
            calendar = new_calendar()
            slots = [slot() for _ in range(3)]
            holds = await asyncio.gather(*(agent.place_hold(calendar, {"start_time": s, "end_time": e, "hold_ttl_seconds": 60}) for s, e in slots))
            committed = await agent.commit_hold(holds[0]["id"])
            listed = [h["id"] async for h in agent.iter_holds(limit=2) if h["id"] in {x["id"] for x in holds}]
            with self.assertRaises(AgentDraftError):
                await agent.get_hold("hold_missing")
            return holds, committed, listed

        holds, committed, listed = asyncio.run(scenario())
        self.assertEqual(committed["status"], "committed")
        self.assertEqual(sorted(listed), sorted(h["id"] for h in holds))


if __name__ == "__main__":
    unittest.main()
