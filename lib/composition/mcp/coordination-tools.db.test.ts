// @suite moved-clock
import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { mcpClients } from "../../../test/helpers/mcp-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { composeMime } from "../../../test/helpers/mime";
import { createCalendar } from "../../domains/calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { decideApproval } from "../../domains/approvals/decide-approval";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

const SECRET = "inbound-secret-for-mcp-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);



async function setup() {
  const { workspace } = await newWorkspace();
  const a = await newAgent(workspace.id, "deployer");
  const b = await newAgent(workspace.id, "reviewer");
  const { key: keyA } = await newKey(workspace.id, { agent_id: a.id });
  const { key: keyB } = await newKey(workspace.id, { agent_id: b.id });
  return { workspace, a, b, keyA, keyB };
}

describe("MCP coordination tools", () => {
  it("acquire, conflict, verify, renew and release a lease; idempotent retries share the REST store", async () => {
    const { keyA, keyB } = await setup();
    const [ca, cb] = [await connect(keyA), await connect(keyB)];
    const got = await call(ca, "acquire_lease", { resource: "deploy:staging", ttl_seconds: 60, idempotency_key: "lease-1" });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ object: "lease", fencing_token: 1, status: "active" });
    const again = await call(ca, "acquire_lease", { resource: "deploy:staging", ttl_seconds: 60, idempotency_key: "lease-1" });
    expect(again.structuredContent.id).toBe(got.structuredContent.id);
    const refused = await call(cb, "acquire_lease", { resource: "deploy:staging", ttl_seconds: 60 });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("lease_conflict");
    // The holder's fencing token is not in the refusal (nor is its agent, to another agent's key).
    expect(JSON.stringify(refused)).not.toContain("fencing_token");
    expect((await call(cb, "verify_fencing_token", { resource: "deploy:staging", fencing_token: 1 })).structuredContent).toMatchObject({ valid: true });
    expect((await call(ca, "renew_lease", { lease_id: got.structuredContent.id, ttl_seconds: 90 })).structuredContent.ttl_seconds).toBe(90);
    expect((await call(cb, "get_lease", { lease_id: got.structuredContent.id })).isError).toBe(true);
    expect((await call(ca, "list_leases", { status: "active" })).structuredContent.data).toHaveLength(1);
    expect((await call(ca, "release_lease", { lease_id: got.structuredContent.id })).structuredContent.status).toBe("released");
    expect((await call(cb, "acquire_lease", { resource: "deploy:staging", ttl_seconds: 60 })).structuredContent.fencing_token).toBe(2);
  });

  it("claims a received message: one worker wins, claimable listing, complete", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "support");
    const { key: w1 } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
    const { key: w2 } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
    const inbox = await api("/api/v1/inboxes", { key: w1, body: { username: `support-${Date.now()}` } });
    const raw = await composeMime({ from: "c@example.com", to: inbox.json.address, subject: "Help", text: "Please", messageId: `<help-${Date.now()}@example.com>` });
    const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
    const messageId = res.json.deliveries[0].message_id as string;
    const [c1, c2] = [await connect(w1), await connect(w2)];
    expect((await call(c1, "list_messages", { inbox_id: inbox.json.id, claimable: "true" })).structuredContent.data).toHaveLength(1);
    const claimed = (await call(c1, "claim_message", { message_id: messageId, ttl_seconds: 60 })).structuredContent;
    expect(claimed.status).toBe("claimed");
    const lost = await call(c2, "claim_message", { message_id: messageId, ttl_seconds: 60 });
    expect(lost.isError).toBe(true);
    expect(JSON.stringify(lost.content)).toContain("message_claimed");
    expect((await call(c2, "list_messages", { inbox_id: inbox.json.id, claimable: "true" })).structuredContent.data).toHaveLength(0);
    // Ending a claim names it (#48): without claim_id, refused on every channel.
    expect(JSON.stringify((await call(c1, "complete_message", { message_id: messageId })).content)).toContain("claim_id_required");
    expect((await call(c1, "complete_message", { message_id: messageId, claim_id: claimed.id })).structuredContent.status).toBe("completed");
    expect(JSON.stringify((await call(c2, "release_message", { message_id: messageId, claim_id: claimed.id })).content)).toContain("message_completed");
  });

  it("two sessions on one key are two workers: the second claim loses; only the claim's id renews and completes it", async () => {
    const { workspace, a } = await setup();
    const { key } = await newKey(workspace.id, { agent_id: a.id, scopes: ["mail"] });
    const inbox = await api("/api/v1/inboxes", { key, body: { username: `shared-${Date.now()}` } });
    const raw = await composeMime({ from: "c@example.com", to: inbox.json.address, subject: "Help", text: "Please", messageId: `<shared-${Date.now()}@example.com>` });
    const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
    const messageId = res.json.deliveries[0].message_id as string;
    const [c1, c2] = [await connect(key), await connect(key)];
    const won = (await call(c1, "claim_message", { message_id: messageId, ttl_seconds: 60, worker: "session-1" })).structuredContent;
    expect(won).toMatchObject({ status: "claimed", worker: "session-1" });
    expect(JSON.stringify((await call(c2, "claim_message", { message_id: messageId, ttl_seconds: 60 })).content)).toContain("message_claimed");
    expect(JSON.stringify((await call(c2, "complete_message", { message_id: messageId, claim_id: "mclm_00000000000000000000000000" })).content)).toContain("message_claimed");
    expect((await call(c1, "claim_message", { message_id: messageId, ttl_seconds: 120, claim_id: won.id })).structuredContent).toMatchObject({ id: won.id, ttl_seconds: 120 });
    expect((await call(c1, "complete_message", { message_id: messageId, claim_id: won.id })).structuredContent).toMatchObject({ id: won.id, status: "completed" });
  });

  it("request_approval with hold_ids keeps the hold until a member approves, then it is committed", async () => {
    const { workspace, keyA } = await setup();
    const cal = await createCalendar(operatorActor(workspace.id), { name: "staging" });
    const approver = await newMember(workspace.id, "approver");
    const client = await connect(keyA);
    const start = T(9);
    const end = T(10);
    const hold = await call(client, "place_hold", { calendar_ids: [cal.id], start_time: start, end_time: end, priority: 50, hold_ttl_seconds: 60 });
    const asked = await call(client, "request_approval", { summary: "Migrate staging", evidence: { plan: "0042" }, hold_ids: [hold.structuredContent.id] });
    expect(asked.structuredContent).toMatchObject({ status: "pending", hold_ids: [hold.structuredContent.id], holds: [{ status: "held" }] });
    await decideApproval(approver.actor, asked.structuredContent.id, "approve");
    const done = await call(client, "get_approval", { approval_id: asked.structuredContent.id });
    expect(done.structuredContent.holds[0].status).toBe("committed");
  });
});

describe("MCP lease tools and the leases scope", () => {
  it("a key without the leases scope cannot take, renew, release or read leases through MCP", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "deployer");
    const { key: mailOnly } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail", "calendar"] });
    const { key: leasing } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["leases"] });
    const [without, withScope] = [await connect(mailOnly), await connect(leasing)];
    const got = await call(withScope, "acquire_lease", { resource: "deploy:mcp-scope", ttl_seconds: 60 });
    expect(got.isError).toBeFalsy();
    for (const [tool, args] of [
      ["acquire_lease", { resource: "deploy:mcp-other", ttl_seconds: 60 }],
      ["renew_lease", { lease_id: got.structuredContent.id, ttl_seconds: 60 }],
      ["release_lease", { lease_id: got.structuredContent.id }],
      ["get_lease", { lease_id: got.structuredContent.id }],
      ["list_leases", {}],
      ["verify_fencing_token", { resource: "deploy:mcp-scope", fencing_token: 1 }],
    ] as const) {
      const refused = await call(without, tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(JSON.stringify(refused.content), tool).toContain("insufficient_scope");
    }
    expect((await call(withScope, "get_lease", { lease_id: got.structuredContent.id })).structuredContent.status).toBe("active");
  });
});
