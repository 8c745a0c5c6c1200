import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { setTestEnv } from "../../../test/helpers/env";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { startFakeResendDomains } from "../../../test/fakes/resend-domains-server";
import { getDb } from "../../../db/client";
import { mailDomains, webhookEvents } from "../../../db/schema";
import { enabledKinds } from "../../composition/job-kinds";
import { createEngine, type Engine } from "../../platform/jobs/engine";
import { acquireRunnerLock } from "../../platform/jobs/runner-lock";
import { setLocalEngine } from "../../platform/jobs/schedule";
import type { WorkKind } from "../../platform/jobs/work";
import { createDomain, DOMAIN_CHECK_KIND, pendingDomainsSource } from "./mail-domains";

// The scheduled re-check through the embedded engine and the real registry (lib/composition/job-kinds.ts),
// against the local fake of Resend's Domains API: it checks while pending and stops once verified.
let fake: Awaited<ReturnType<typeof startFakeResendDomains>>;
const vars = { RESEND_API_KEY: "re_check_key", RESEND_BASE_URL: "http://127.0.0.1:9", AGENTDRAFT_MAIL_DOMAIN: "agents.test" };
beforeAll(async () => {
  fake = await startFakeResendDomains({ apiKey: vars.RESEND_API_KEY });
  vars.RESEND_BASE_URL = fake.url;
});
afterAll(() => fake?.close());
setTestEnv(vars);

const LEASE = `domain-check-${process.pid}`;
const mine = new Set<string>(["-"]);
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop(2_000);
  setLocalEngine(undefined);
  engine = undefined;
});
function startEngine() {
  const kinds: WorkKind[] = enabledKinds()
    .filter((k) => k.name === DOMAIN_CHECK_KIND)
    .map((k) => ({ ...k, source: () => sql`select * from (${k.source()}) as own where own.workspace_id in (${sql.join([...mine].map((w) => sql`${w}`), sql`, `)})` }));
  engine = createEngine({ kinds, crons: [], concurrency: 4, idlePollMs: 200, acquireLock: () => acquireRunnerLock({ name: LEASE }) });
  setLocalEngine(engine);
  engine.start();
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting; last: ${JSON.stringify(v)}`);
    await sleep(50);
  }
}
const row = async (id: string) => (await (await getDb()).select().from(mailDomains).where(eq(mailDomains.id, id)))[0]!;
const makeDue = async (id: string) => (await getDb()).update(mailDomains).set({ nextCheckAt: sql`now()` }).where(eq(mailDomains.id, id));
const verifyCalls = (providerId: string) => fake.requests.filter((r) => r.path === `/domains/${providerId}/verify`).length;

describe("the domain re-check job", () => {
  it("checks a pending domain when due, backs off while DNS lacks the records, and stops for good once verified", async () => {
    const { workspace, actor } = await newWorkspace();
    mine.add(workspace.id);
    const name = `mail.acme-${randomBytes(5).toString("hex")}.com`;
    const domain = await createDomain(actor, { name });
    expect(domain).toMatchObject({ status: "pending", checkAttempts: 0 });
    startEngine();

    // Due now: the engine runs one check; DNS has nothing yet, so the next waits 5 minutes.
    await makeDue(domain.id);
    const first = await until(() => row(domain.id), (r) => r.checkAttempts === 1 && r.lastCheckedAt !== null && r.nextCheckAt !== null && r.nextCheckAt.getTime() > Date.now() + 4 * 60_000);
    expect(first.status).toBe("pending");
    expect(first.nextCheckAt!.getTime()).toBeLessThanOrEqual(Date.now() + 5 * 60_000 + 1000);
    expect(verifyCalls(first.providerId!)).toBe(1);

    // The records appear; the next due check finds them.
    fake.setDns(name, { spf: true, dkim: true, mx: true });
    await makeDue(domain.id);
    const verified = await until(() => row(domain.id), (r) => r.status === "verified");
    expect(verified).toMatchObject({ checkAttempts: 2, nextCheckAt: null, verifiedAt: expect.any(Date) });
    expect(verified.records.every((r) => r.status === "verified")).toBe(true);
    const events = await (await getDb()).select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id));
    expect(events.map((e) => e.type)).toEqual(["domain.verified"]);

    // Nothing is due for it any more, and nothing runs: no ticking clock.
    const due = await (await getDb()).execute<{ id: string }>(sql`select id from (${pendingDomainsSource()}) as s where s.id = ${domain.id}`);
    expect(due.rows).toHaveLength(0);
    const calls = verifyCalls(verified.providerId!);
    await sleep(1_500);
    expect(verifyCalls(verified.providerId!)).toBe(calls);
    expect((await row(domain.id)).checkAttempts).toBe(2);
  });
});
