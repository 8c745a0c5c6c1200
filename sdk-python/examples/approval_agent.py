"""An agent that books a slot only with a person's approval.

It places a hold, binds it to an approval request (so the slot stays held while people decide),
waits for the decision, verifies the signed receipt, and commits the hold; on a denial the
server releases the hold and the agent stops.

    AGENTDRAFT_API_KEY=ad_live_... AGENTDRAFT_URL=http://localhost:3000 \\
        python3 approval_agent.py cal_... 2031-01-06T15:00:00Z 2031-01-06T17:00:00Z
"""

import os
import sys
from typing import Any, Dict, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from agentdraft import AgentDraft, AgentDraftError, action_sha256  # noqa: E402


def book_with_approval(client: AgentDraft, calendar_id: str, start: str, end: str, *, summary: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The committed hold, or None when a person said no (or nobody decided in time)."""
    hold = client.place_hold(calendar_id, {"start_time": start, "end_time": end, "priority": 70, "hold_ttl_seconds": 300})
    action = {"type": "calendar.book", "calendar_id": calendar_id, "hold_id": hold["id"], "start_time": start, "end_time": end}
    approval = client.request_approval(
        {
            "summary": summary or f"Book the staging cluster {start} to {end}",
            "evidence": {"requested_by": "release-bot", "reason": "load test before the launch"},
            "action": action,
            "action_class": "calendar.book",
            # Bound: the hold is kept while people decide; on_approve "hold" leaves the commit to us.
            "hold_ids": [hold["id"]],
            "on_approve": "hold",
        }
    )
    print(f"asked for approval {approval['id']} (hold {hold['id']}); waiting...")
    decided = client.wait_for_approval(approval["id"], timeout=600)
    if decided["status"] != "approved":
        print(f"approval {decided['status']}: the hold is released, nothing booked")
        return None

    # The receipt is signed by the workspace's key: anyone can check what exactly was approved.
    receipt = client.verify_receipt(decided["receipt"])
    if receipt["status"] != "approved" or receipt["action_sha256"] != action_sha256(action):
        raise RuntimeError("the receipt does not approve this action")
    client.consume_approval(approval["id"], {"action": action})
    committed = client.commit_hold(hold["id"])
    print(f"booked: event {committed['event_ids'][0]}")
    return committed


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    client = AgentDraft(os.environ["AGENTDRAFT_API_KEY"], os.environ.get("AGENTDRAFT_URL", "http://localhost:3000"))
    try:
        return 0 if book_with_approval(client, *sys.argv[1:4]) else 1
    except AgentDraftError as error:
        print(f"{error.code}: {error.detail} (request {error.request_id})", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
