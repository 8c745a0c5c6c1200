import { describe, expect, it, onTestFinished } from "vitest";
import { eq, sql } from "drizzle-orm";
import { GET } from "../../../app/api/health/route";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { outboundMail, webhookDeliveries } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { holdBackSealing } from "../../../test/helpers/audit";
import { createEndpoint } from "../../domains/webhooks/create-endpoint";
import { emitEvent } from "../../platform/events/emit-event";
import { recordStartupCheck, resetStartupGate } from "../../platform/config/startup-gate";

setTestEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32" });
const health = (headers: Record<string, string> = {}) => GET(new Request("http://localhost/api/health", { headers }));
const driver = ({ postgres: "pg", pooled: "neon" } as Record<string, string>)[process.env.AGENTDRAFT_TEST_DB ?? ""] ?? "pglite";

describe("GET /api/health", () => {
  it("tells anyone only ok, degraded or down", async () => {
    const res = await health();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("shows an API key of any scope the database and background work, and refuses a wrong key", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id, { scopes: ["audit"] });
    const res = await health({ authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      status: "ok",
      database: { reachable: true, driver, migrations: { applied: expect.any(Number), pending: 0 } },
      background: {
        outbox_events: { pending: expect.any(Number) },
        webhook_deliveries: { pending: expect.any(Number) },
        queued_mail: { pending: expect.any(Number) },
        unsealed_audit_entries: expect.any(Number),
      },
    });
    expect(body.database.latency_ms).toBeGreaterThanOrEqual(0);
    // It names no migration (nothing about the schema's history).
    expect(JSON.stringify(body)).not.toMatch(/foundation|_[a-z]+_[a-z]+_idx/);

    const wrong = await health({ authorization: "Bearer ad_live_not-a-real-key-0000000000000000000000" });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe("unauthorized");
  });

  it("judges by when work is due, not when it was written: a retry on schedule is fine, a delivery or mail overdue 20 minutes is degraded", async () => {
    const { workspace, actor } = await newWorkspace();
    // No sealing job runs in this test, but other files' sealers do (one database): this workspace's entries stay unsealed while it looks.
    onTestFinished(await holdBackSealing(workspace.id));
    const { key } = await newKey(workspace.id);
    const endpoint = await createEndpoint(actor, { url: "http://127.0.0.1:9/never" });
    await transaction((tx) => emitEvent(tx, actor, { type: "email.received", data: { n: 1 } }));
    const db = await getDb();
    const mailId = newId("outboundMail");
    onTestFinished(async () => {
      await db.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
      await db.delete(outboundMail).where(eq(outboundMail.id, mailId));
    });
    // A dead endpoint retried on schedule for a day, and a mail whose next attempt is in an hour: waiting, not late.
    await db.update(webhookDeliveries).set({ createdAt: sql`now() - interval '1 day'`, attempts: 9, nextAttemptAt: sql`now() + interval '1 hour'` }).where(eq(webhookDeliveries.endpointId, endpoint.id));
    await db.insert(outboundMail).values({ id: mailId, workspaceId: workspace.id, from: "a@agents.localhost", to: ["b@example.com"], subject: "s", text: "t", kind: "test", status: "queued", nextAttemptAt: new Date(Date.now() + 3_600_000), createdAt: new Date(Date.now() - 30 * 60_000) });
    const waiting = await (await health({ authorization: `Bearer ${key}` })).json();
    expect(waiting.status).toBe("ok");
    expect(waiting.background.webhook_deliveries).toEqual({ pending: 1, overdue_seconds: null });
    expect(waiting.background.queued_mail).toEqual({ pending: 1, overdue_seconds: null });
    expect(waiting.background.unsealed_audit_entries).toBeGreaterThanOrEqual(1);

    // Due twenty and thirty minutes ago, and nobody sent them: the sweeper should have.
    await db.update(webhookDeliveries).set({ nextAttemptAt: sql`now() - interval '20 minutes'` }).where(eq(webhookDeliveries.endpointId, endpoint.id));
    await db.update(outboundMail).set({ nextAttemptAt: sql`now() - interval '30 minutes'` }).where(eq(outboundMail.id, mailId));
    const late = await (await health({ authorization: `Bearer ${key}` })).json();
    expect(late.status).toBe("degraded");
    expect(late.background.webhook_deliveries.overdue_seconds).toBeGreaterThanOrEqual(20 * 60 - 5);
    expect(late.background.queued_mail.overdue_seconds).toBeGreaterThanOrEqual(30 * 60 - 5);
    expect(await (await health()).json()).toEqual({ status: "degraded" });

    // Another tenant's key sees the deployment's verdict but none of this workspace's queues.
    const other = await newWorkspace();
    const { key: otherKey } = await newKey(other.workspace.id);
    const theirs = await (await health({ authorization: `Bearer ${otherKey}` })).json();
    expect(theirs.status).toBe("degraded");
    expect(theirs.background).toEqual({
      outbox_events: { pending: 0, overdue_seconds: null },
      webhook_deliveries: { pending: 0, overdue_seconds: null },
      queued_mail: { pending: 0, overdue_seconds: null },
      unsealed_audit_entries: expect.any(Number),
    });
  });

  it("is degraded while the start-up checks refuse to serve, and tells the details why", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    recordStartupCheck({ reason: "RESEND_API_KEY is not set: set it.", transient: false });
    try {
      expect(await (await health()).json()).toEqual({ status: "degraded" });
      expect(await (await health({ authorization: `Bearer ${key}` })).json()).toMatchObject({ status: "degraded", startup_problem: "RESEND_API_KEY is not set: set it." });
    } finally {
      resetStartupGate();
    }
    expect((await (await health({ authorization: `Bearer ${key}` })).json()).startup_problem).toBeNull();
  });
});
