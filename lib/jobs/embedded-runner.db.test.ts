import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { getDriver } from "../../db/client";
import { queryable, transaction } from "../../db/transaction";
import { webhookDeliveries } from "../../db/schema";
import { resetEnvCache } from "../config/env";
import { emitEvent } from "../events/emit-event";
import { newWorkspace } from "../../test/helpers/fixtures";
import { startReceiver } from "../../test/helpers/webhook-receiver";
import { createEndpoint } from "../webhooks/create-endpoint";
import { acquireRunnerLock } from "./runner-lock";
import { createRunner } from "./runner";
import { JOBS } from "./registry";

describe("single-runner lock", () => {
  it("lets one process at a time run the jobs", async () => {
    const first = await acquireRunnerLock();
    expect(first).not.toBeNull();
    if ((await getDriver()) !== "pglite") {
      // A second holder (another process, or another connection) is refused until release.
      expect(await acquireRunnerLock()).toBeNull();
      await first!.release();
      const again = await acquireRunnerLock();
      expect(again).not.toBeNull();
      await again!.release();
    } else {
      await first!.release();
    }
  });

  it("registers the audit, webhook, idempotency, hold, approval, mail and Google jobs", () => {
    expect(JOBS.map((j) => [j.name, j.intervalMs])).toEqual([
      ["audit.seal", 1000],
      ["webhooks.fan-out", 1000],
      ["webhooks.deliver", 1000],
      ["webhooks.purge-history", 3_600_000],
      ["idempotency.purge", 3_600_000],
      ["holds.expire", 1000],
      ["approvals.expire", 5000],
      ["approvals.notify", 2000],
      ["approvals.escalate", 5000],
      ["mail.deliver", 1000],
      ["google.sync", 2000],
      ["google.export", 2000],
      ["google.renew-channels", 900_000],
    ]);
  });
});

// The registered jobs are unscoped: they deliver whatever is due in the database. Only on the
// per-file PGlite database is everything due here this file's own (loopback) deliveries.
describe.skipIf(process.env.AGENTDRAFT_TEST_DB === "postgres")("embedded runner, end to end", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1/32";
    resetEnvCache();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    delete process.env.WEBHOOK_ALLOWED_HOSTS;
    resetEnvCache();
  });

  it("fans out and delivers an event written in a transaction", async () => {
    const { actor } = await newWorkspace();
    const endpoint = await createEndpoint(actor, { url: `${receiver.url}/runner` });
    const event = await transaction((tx) => emitEvent(tx, actor, { type: "hold.expired", data: { hold_id: "hold_1" } }));
    const runner = createRunner({ jobs: JOBS, tickMs: 10, acquireLock: acquireRunnerLock });
    runner.start();
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await runner.stop();
    expect(receiver.received).toHaveLength(1);
    const { headers, body } = receiver.received[0]!;
    expect(new Webhook(endpoint.secret).verify(body, headers as Record<string, string>)).toMatchObject({ id: event.id, type: "hold.expired" });
    const q = await queryable();
    const [d] = await q.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(d!.status).toBe("succeeded");
  });
});
