import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { newAgent, newKey } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { composeMime } from "../../../test/helpers/mime";
import { getDb } from "../../../db/client";
import { auditEntries, messages, threads } from "../../../db/schema";
import { sealAuditChain } from "../../platform/audit/seal-chain";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const deliver = async (to: string, subject: string) =>
  api(`/api/inbound/raw?to=${encodeURIComponent(to)}`, {
    method: "POST",
    rawBody: (await composeMime({ from: "Ada <ada@example.com>", to, subject, text: `About ${subject}.` })).toString("latin1"),
    headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" },
  });

describe("DELETE /v1/inboxes/{id}", () => {
  it("deletes the inbox and all its mail, refuses mail to the address afterwards, frees the address, and keeps the audit trail", async () => {
    const { workspace, key, inbox } = await newAgentInbox(api, `gone-${Date.now()}`);
    expect((await deliver(inbox.address, "one")).status).toBeLessThan(300);
    expect((await deliver(inbox.address, "two")).status).toBeLessThan(300);

    const res = await api(`/api/v1/inboxes/${inbox.id}`, { method: "DELETE", key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: inbox.id, object: "inbox", deleted: true, address: inbox.address, messages_deleted: 2, threads_deleted: 2 });

    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toEqual([]);
    expect(await db.select().from(threads).where(eq(threads.inboxId, inbox.id))).toEqual([]);
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { key })).status).toBe(404);
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { method: "DELETE", key })).status).toBe(404);
    const refused = await deliver(inbox.address, "three");
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);

    await sealAuditChain();
    const trail = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.resourceId, inbox.id)));
    expect(trail.map((e) => e.action)).toEqual(expect.arrayContaining(["inbox.created", "inbox.deleted"]));
    expect(trail.find((e) => e.action === "inbox.deleted")!.summary).toMatchObject({ address: inbox.address, messages: 2, threads: 2 });

    const again = await api("/api/v1/inboxes", { key, body: { username: inbox.address.split("@")[0] } });
    expect(again.status).toBe(201);
  });

  it("is not found for another agent's key and for another workspace, and needs the mail scope", async () => {
    const { workspace, key, inbox } = await newAgentInbox(api);
    const other = await newAgent(workspace.id);
    const { key: otherAgentKey } = await newKey(workspace.id, { agent_id: other.id });
    const { key: calendarOnly } = await newKey(workspace.id, { scopes: ["calendar"] });
    const { key: foreign } = await newAgentInbox(api);
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { method: "DELETE", key: otherAgentKey })).status).toBe(404);
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { method: "DELETE", key: foreign })).status).toBe(404);
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { method: "DELETE", key: calendarOnly })).status).toBe(403);
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { key })).status).toBe(200);
  });
});
