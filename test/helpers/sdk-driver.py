"""Drives the Python SDK for a test: reads one JSON call per line on stdin, answers one JSON line.

A call: {"id": n, "key": "ad_...", "method": "send_message", "args": [...], "kwargs": {...}}.
The answer: {"id": n, "status": 200, "body": {...}} for a result (status 200: the SDK gives the
body, not the status), or {"id": n, "status": 4xx, "body": problem} for an AgentDraftError.
The base URL is AGENTDRAFT_BASE_URL. One client per key, kept for the whole run.
"""
import json
import os
import sys

from agentdraft import AgentDraft
from agentdraft.errors import AgentDraftError

clients = {}


def client(key):
    if key not in clients:
        clients[key] = AgentDraft(api_key=key, base_url=os.environ["AGENTDRAFT_BASE_URL"], max_retries=0)
    return clients[key]


for line in sys.stdin:
    call = json.loads(line)
    try:
        body = getattr(client(call["key"]), call["method"])(*call.get("args", []), **call.get("kwargs", {}))
        answer = {"id": call["id"], "status": 200, "body": body}
    except AgentDraftError as e:
        answer = {"id": call["id"], "status": e.status, "body": {"code": e.code, "detail": str(e)}}
    except Exception as e:  # the test reports it: a driver error is not an API answer
        answer = {"id": call["id"], "status": 0, "body": {"code": "driver_error", "detail": repr(e)}}
    sys.stdout.write(json.dumps(answer, default=str) + "\n")
    sys.stdout.flush()
