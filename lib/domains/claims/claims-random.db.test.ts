import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { messageClaims } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { composeMime } from "../../../test/helpers/mime";
import { mulberry32 } from "../../../test/helpers/seeded-random";

const SECRET = "inbound-secret-for-claim-history-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

async function receive(address: string, subject: string): Promise<string> {
  const raw = await composeMime({ from: "Customer <customer@example.com>", to: address, subject, text: `About ${subject}`, messageId: `<${Date.now()}-${Math.random()}@example.com>` });
  const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status, res.text).toBeLessThan(300);
  return res.json.deliveries[0].message_id as string;
}

describe("randomized concurrent message claims", () => {
  it("workers sharing keys: each claim is one worker's, only its worker renews or ends it, and per message the claims' lives follow one another", { timeout: 120_000 }, async () => {
    const seed = Number(process.env.CLAIMS_SEED ?? Date.now() % 100_000);
    const random = mulberry32(seed);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    console.log(`randomized claims run, seed ${seed} (CLAIMS_SEED=${seed} reproduces the choices)`);

    const ctx = await newAgentInbox(api);
    // Twelve workers on three keys of one agent: four share each key.
    const keys = [ctx.key, ...(await Promise.all([1, 2].map(() => newKey(ctx.workspace.id, { agent_id: ctx.agent.id, scopes: ["mail"] }).then((k) => k.key))))];
    const messages = await Promise.all(["A", "B", "C", "D", "E"].map((s) => receive(ctx.inbox.address, `Ticket ${s}`)));

    const givenTo = new Map<string, string[]>(); // claim id → the workers a new claim answered with it
    const wrongClaim: unknown[] = []; // a renewal or end that answered another claim than the worker's
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);

    const worker = async (name: string, key: string) => {
      const mine: { message: string; claim: string }[] = [];
      for (let op = 0; op < 30; op++) {
        const r = random();
        if (r < 0.4 || mine.length === 0) {
          const message = pick(messages);
          const res = await api(`/api/v1/messages/${message}/claim`, { key, body: { ttl_seconds: 1 + Math.floor(random() * 2), worker: name } });
          count(res.status);
          if (res.status === 200) {
            givenTo.set(res.json.id, [...(givenTo.get(res.json.id) ?? []), name]);
            mine.push({ message, claim: res.json.id });
          }
          continue;
        }
        const held = pick(mine);
        const res =
          r < 0.6
            ? await api(`/api/v1/messages/${held.message}/claim`, { key, body: { ttl_seconds: 1 + Math.floor(random() * 2), claim_id: held.claim } })
            : await api(`/api/v1/messages/${held.message}/${r < 0.93 ? "release" : "complete"}`, { key, body: { claim_id: held.claim } });
        count(res.status);
        if (res.status === 200 && res.json.id !== held.claim) wrongClaim.push({ worker: name, sent: held.claim, got: res.json.id });
        if (res.status !== 200 || res.json.status !== "claimed") mine.splice(mine.indexOf(held), 1);
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => worker(`worker-${i}`, keys[i % keys.length]!)));

    console.log("statuses", Object.fromEntries(statuses));
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(409)).toBeGreaterThan(0);
    expect([...givenTo].filter(([, workers]) => workers.length > 1)).toEqual([]);
    expect(wrongClaim).toEqual([]);

    const db = await getDb();
    const rows = await db.select().from(messageClaims).where(eq(messageClaims.workspaceId, ctx.workspace.id));
    expect(rows.map((c) => c.id).sort()).toEqual([...givenTo.keys()].sort());
    for (const message of messages) {
      const claims = rows.filter((c) => c.messageId === message).sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
      for (let i = 1; i < claims.length; i++) {
        const before = claims[i - 1]!;
        expect(before.status, `${message}: a claim after ${before.id}`).not.toBe("completed");
        expect(claims[i]!.createdAt.getTime(), `${message}: ${claims[i]!.id} began before ${before.id} ended`).toBeGreaterThanOrEqual((before.endedAt ?? before.expiresAt).getTime());
      }
      for (const c of claims) expect(c.worker, c.id).toBe(givenTo.get(c.id)![0]);
    }
    const { key: auditor } = await newKey(ctx.workspace.id);
    expect((await api("/api/v1/audit/verify", { key: auditor })).json.valid).toBe(true);
  });
});
