import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { startFakeResend } from "../../../test/helpers/fake-resend";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { outboundMail } from "../../../db/schema";
import { queueMail } from "./send-mail";
import { deliverSystemMail } from "./deliver-system-mail";

// Resend configured, pointed at the local fake: notifications are queued, then delivered by the job.
let fake: Awaited<ReturnType<typeof startFakeResend>>;
const vars = { RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: "http://127.0.0.1:9" };
beforeAll(async () => {
  fake = await startFakeResend({ apiKey: vars.RESEND_API_KEY });
  vars.RESEND_BASE_URL = fake.url;
});
afterAll(() => fake?.close());
setTestEnv(vars);

const rows = async (ids: string[]) => (await getDb()).select().from(outboundMail).where(inArray(outboundMail.id, ids));
const makeDue = async (ids: string[]) => (await getDb()).update(outboundMail).set({ nextAttemptAt: sql`now()` }).where(inArray(outboundMail.id, ids));
const notice = (workspaceId: string, n = 0) => ({ workspaceId, to: [`owner-${n}@team.test`], subject: `Notice ${n}`, text: "Something happened.", kind: "test_notice" });

describe("queued system mail", () => {
  it("is written with the change that decided it: a rollback queues nothing", async () => {
    const { workspace } = await newWorkspace();
    const kept = await transaction((tx) => queueMail(tx, notice(workspace.id)));
    expect(kept.status).toBe("queued");
    await expect(
      transaction(async (tx) => {
        await queueMail(tx, notice(workspace.id, 1));
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    const all = await (await getDb()).select().from(outboundMail).where(eq(outboundMail.workspaceId, workspace.id));
    expect(all.map((m) => m.id)).toEqual([kept.id]);
  });

  it("is sent by the job with its id as idempotency key, retried when Resend fails, failed when Resend refuses", async () => {
    const { workspace } = await newWorkspace();
    await deliverSystemMail(); // whatever earlier tests left due
    const before = fake.sent.length;

    const ok = await transaction((tx) => queueMail(tx, notice(workspace.id, 1)));
    expect(await deliverSystemMail(undefined, 1)).toEqual({ sent: 1, retried: 0, failed: 0 });
    const flaky = await transaction((tx) => queueMail(tx, notice(workspace.id, 2)));
    fake.failNext(503);
    expect(await deliverSystemMail(undefined, 1)).toEqual({ sent: 0, retried: 1, failed: 0 });
    const refused = await transaction((tx) => queueMail(tx, notice(workspace.id, 3)));
    fake.failNext(422, "validation_error", "Invalid `to` field.");
    expect(await deliverSystemMail(undefined, 1)).toEqual({ sent: 0, retried: 0, failed: 1 });

    const byId = new Map((await rows([ok.id, flaky.id, refused.id])).map((r) => [r.id, r]));
    expect(byId.get(ok.id)).toMatchObject({ status: "sent", attempts: 1, providerId: fake.sent[before]!.id, nextAttemptAt: null });
    expect(fake.sent[before]).toMatchObject({ idempotencyKey: ok.id, body: { to: ["owner-1@team.test"], subject: "Notice 1" } });
    expect(byId.get(flaky.id)).toMatchObject({ status: "queued", attempts: 1, lastError: expect.stringMatching(/503/) });
    expect(byId.get(flaky.id)!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 3000);
    expect(byId.get(refused.id)).toMatchObject({ status: "failed", lastError: expect.stringMatching(/422.*Invalid `to`/) });

    await makeDue([flaky.id]);
    expect(await deliverSystemMail()).toEqual({ sent: 1, retried: 0, failed: 0 });
    expect((await rows([flaky.id]))[0]).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("sends each message once when several runners race", async () => {
    const { workspace } = await newWorkspace();
    await deliverSystemMail();
    const before = fake.sent.length;
    const queued = [];
    for (let i = 0; i < 15; i++) queued.push(await transaction((tx) => queueMail(tx, notice(workspace.id, i))));
    const runs = await Promise.all(Array.from({ length: 5 }, () => deliverSystemMail(undefined, 4)));
    while ((await rows(queued.map((q) => q.id))).some((r) => r.status === "queued")) runs.push(await deliverSystemMail(undefined, 4));
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(15);
    expect(fake.sent.slice(before).map((s) => s.idempotencyKey).sort()).toEqual(queued.map((q) => q.id).sort());
  });
});
