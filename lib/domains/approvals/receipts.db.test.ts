import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { decideApproval } from "./decide-approval";
import { actionHash, verifyReceipt } from "./receipts";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

/** A workspace whose agent asked for a refund and whose approver approved it. */
async function approvedRefund(action: Record<string, unknown>) {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "payments");
  const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
  const approver = await newMember(workspace.id, "approver");
  const created = await api("/api/v1/approvals", {
    key,
    body: { summary: "Refund order 8812", evidence: { order: 8812 }, action, action_class: "refund", amount: 120, currency: "EUR", required_approvals: 1 },
  });
  expect(created.status).toBe(201);
  await decideApproval(approver.actor, created.json.id, "approve");
  const decided = (await api(`/api/v1/approvals/${created.json.id}`, { key })).json;
  return { workspace, agent, approval: created.json, receipt: decided.receipt as string };
}

describe("approval receipts", () => {
  it("bind the action, its class, amount, currency, the asking agent, the quorum, the workspace and the expiry", async () => {
    const action = { type: "refund", order: 8812, amount: 120, currency: "EUR" };
    const { workspace, agent, approval, receipt } = await approvedRefund(action);
    expect(approval.action).toEqual(action);
    expect(approval.action_sha256).toBe(actionHash({ currency: "EUR", amount: 120, order: 8812, type: "refund" })); // canonical: key order does not matter
    const jwks = (await api(`/.well-known/jwks.json?workspace_id=${workspace.id}`)).json;
    expect(await verifyReceipt(receipt, jwks, workspace.id)).toMatchObject({
      approval_id: approval.id,
      workspace_id: workspace.id,
      agent_id: agent.id,
      status: "approved",
      required_approvals: 1,
      action_class: "refund",
      amount: 120,
      currency: "EUR",
      action_sha256: actionHash(action),
      expires_at: approval.expires_at,
    });
  });

  it("a second workspace's receipt is rejected by a verifier of the first", async () => {
    const first = await approvedRefund({ type: "refund", order: 1 });
    const second = await approvedRefund({ type: "refund", order: 1 });
    const firstKeys = (await api(`/.well-known/jwks.json?workspace_id=${first.workspace.id}`)).json;
    expect(firstKeys.keys).toHaveLength(1);
    await expect(verifyReceipt(first.receipt, firstKeys, first.workspace.id)).resolves.toMatchObject({ workspace_id: first.workspace.id });
    // Not signed by a key of the first workspace's set...
    await expect(verifyReceipt(second.receipt, firstKeys, first.workspace.id)).rejects.toThrow();
    // ...and even with both sets at hand, the payload names the other workspace.
    const secondKeys = (await api(`/.well-known/jwks.json?workspace_id=${second.workspace.id}`)).json;
    await expect(verifyReceipt(second.receipt, { keys: [...firstKeys.keys, ...secondKeys.keys] }, first.workspace.id)).rejects.toThrow(/another workspace/);
  });

  it("the JWKS serves one workspace's keys, never every workspace's", async () => {
    await approvedRefund({ type: "refund", order: 2 });
    const all = await api("/.well-known/jwks.json");
    expect(all.status).toBe(400);
    expect(all.json).toMatchObject({ code: "validation_failed", errors: [{ field: "workspace_id" }] });
    expect((await api("/.well-known/jwks.json?workspace_id=ws_unknown")).json).toEqual({ keys: [] });
  });
});
