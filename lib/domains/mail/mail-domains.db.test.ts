import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { startFakeResendDomains } from "../../../test/fakes/resend-domains-server";
import { getDb } from "../../../db/client";
import { auditEntries, mailDomains, messages, webhookEvents } from "../../../db/schema";
import { checkDomain, DOMAIN_CHECK_DELAYS_MS } from "./mail-domains";

// Resend configured and pointed at a local fake of its Domains API; the real `resend` client talks to it over loopback.
let fake: Awaited<ReturnType<typeof startFakeResendDomains>>;
const vars = {
  RESEND_API_KEY: "re_domains_key",
  RESEND_BASE_URL: "http://127.0.0.1:9",
  AGENTDRAFT_MAIL_DOMAIN: "agents.test",
  API_RATE_LIMIT_BURST: "100000",
  API_RATE_LIMIT_PER_SECOND: "100000",
};
beforeAll(async () => {
  fake = await startFakeResendDomains({ apiKey: vars.RESEND_API_KEY });
  vars.RESEND_BASE_URL = fake.url;
});
afterAll(() => fake?.close());
setTestEnv(vars);
const { api } = serveApiForTests();

const uniqueDomain = (label = "support") => `${label}.acme-${randomBytes(5).toString("hex")}.com`;

/** A workspace with a workspace-wide mail key, an agent, and that agent's own key. */
async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "ops");
  const { key: admin } = await newKey(workspace.id, { scopes: ["mail"] });
  const { key: agentKey } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
  return { workspace, agent, admin, agentKey };
}
const row = async (id: string) => (await (await getDb()).select().from(mailDomains).where(eq(mailDomains.id, id)))[0]!;
const eventsOf = async (workspaceId: string, type: string) =>
  (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));

describe("workspace domains through Resend", () => {
  it("adds a domain: registered with Resend (sending and receiving) and answered with the DNS records to create", async () => {
    const { admin } = await setup();
    const name = uniqueDomain();
    const before = fake.requests.length;
    const res = await api("/api/v1/domains", { key: admin, body: { name: `  ${name.toUpperCase()}.` } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ object: "domain", name, status: "pending", inboxes: 0, last_error: null, verified_at: null, next_check_at: expect.any(String) });
    const kinds = res.json.records.map((r: { record: string; type: string }) => `${r.record}/${r.type}`);
    expect(kinds).toEqual(["SPF/MX", "SPF/TXT", "DKIM/TXT", "Receiving/MX"]);
    expect(res.json.records.find((r: { record: string }) => r.record === "Receiving")).toMatchObject({ name, value: "inbound-smtp.us-east-1.amazonaws.com", priority: 10, status: "not_started" });
    const calls = fake.requests.slice(before);
    expect(calls).toEqual([{ method: "POST", path: "/domains", body: expect.objectContaining({ name, capabilities: { sending: "enabled", receiving: "enabled" } }) }]);
    // The next check is a minute away, no sooner.
    const due = new Date(res.json.next_check_at).getTime() - new Date(res.json.created_at).getTime();
    expect(due).toBeGreaterThanOrEqual(DOMAIN_CHECK_DELAYS_MS[0]! - 1000);
    const got = await api(`/api/v1/domains/${res.json.id}`, { key: admin });
    expect(got.json).toMatchObject({ id: res.json.id, records: res.json.records });
    const listed = await api("/api/v1/domains", { key: admin });
    expect(listed.json.data.map((d: { id: string }) => d.id)).toEqual([res.json.id]);
  });

  it("refuses names that cannot be a workspace's domain, each with a 400 naming the field", async () => {
    const { admin } = await setup();
    const bad = [
      "192.168.0.1",
      "[::1]",
      "::1",
      "localhost",
      "a..b.com",
      "-acme.com",
      "acme-.com",
      "ac_me.com",
      `${"a".repeat(64)}.com`,
      `${"abcdefghi.".repeat(25)}coms`, // 254 characters
      "agents.test",
      "x.agents.test",
      "user@acme.com",
      "acme.com/path",
      "",
    ];
    for (const name of bad) {
      const res = await api("/api/v1/domains", { key: admin, body: { name } });
      expect(res.status, name).toBe(400);
      expect(res.json.code, name).toBe("validation_failed");
      expect(res.json.errors[0].field, name).toBe("name");
    }
    expect((await api("/api/v1/domains", { key: admin, body: { name: "x".repeat(10_000) } })).status).toBe(400);
    // An international name is stored in punycode.
    const idn = await api("/api/v1/domains", { key: admin, body: { name: `bücher-${randomBytes(4).toString("hex")}.de` } });
    expect(idn.status).toBe(201);
    expect(idn.json.name).toMatch(/^xn--/);
  });

  it("an agent-bound key cannot add, verify or delete a domain, but can read them", async () => {
    const { admin, agentKey } = await setup();
    const refused = await api("/api/v1/domains", { key: agentKey, body: { name: uniqueDomain() } });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("forbidden");
    const made = (await api("/api/v1/domains", { key: admin, body: { name: uniqueDomain() } })).json;
    expect((await api(`/api/v1/domains/${made.id}/verify`, { key: agentKey, method: "POST" })).status).toBe(403);
    expect((await api(`/api/v1/domains/${made.id}`, { key: agentKey, method: "DELETE" })).status).toBe(403);
    expect((await api(`/api/v1/domains/${made.id}`, { key: agentKey })).status).toBe(200);
    // Another workspace's domain is not found.
    const other = await setup();
    expect((await api(`/api/v1/domains/${made.id}`, { key: other.admin })).status).toBe(404);
  });

  it("pending: no inbox on it (409 domain_not_verified); verified on demand once DNS has the records, with domain.verified; then inboxes on it send", async () => {
    const { workspace, agent, admin, agentKey } = await setup();
    const name = uniqueDomain();
    const domain = (await api("/api/v1/domains", { key: admin, body: { name } })).json;
    const early = await api("/api/v1/inboxes", { key: agentKey, body: { username: "help", domain: name } });
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ code: "domain_not_verified", domain: name, domain_status: "pending" });

    fake.setDns(name, { spf: true, dkim: true }); // no MX yet
    const partly = await api(`/api/v1/domains/${domain.id}/verify`, { key: admin, method: "POST" });
    expect(partly.status).toBe(200);
    expect(partly.json.status).toBe("pending");
    expect(Object.fromEntries(partly.json.records.map((r: { record: string; type: string; status: string }) => [`${r.record}/${r.type}`, r.status]))).toEqual({
      "SPF/MX": "verified",
      "SPF/TXT": "verified",
      "DKIM/TXT": "verified",
      "Receiving/MX": "pending",
    });
    expect(await eventsOf(workspace.id, "domain.verified")).toHaveLength(0);

    fake.setDns(name, { spf: true, dkim: true, mx: true });
    const verified = await api(`/api/v1/domains/${domain.id}/verify`, { key: admin, method: "POST" });
    expect(verified.json).toMatchObject({ status: "verified", next_check_at: null, verified_at: expect.any(String), note: null });
    const [event] = await eventsOf(workspace.id, "domain.verified");
    expect(event!.data).toMatchObject({ domain: { id: domain.id, name, status: "verified" } });
    // Verifying again changes nothing and fires nothing.
    await api(`/api/v1/domains/${domain.id}/verify`, { key: admin, method: "POST" });
    expect(await eventsOf(workspace.id, "domain.verified")).toHaveLength(1);

    const inbox = await api("/api/v1/inboxes", { key: agentKey, body: { username: "help", domain: name.toUpperCase() } });
    expect(inbox.status).toBe(201);
    expect(inbox.json).toMatchObject({ address: `help@${name}`, domain_id: domain.id, agent_id: agent.id });
    const sent = await api(`/api/v1/inboxes/${inbox.json.id}/messages`, { key: agentKey, body: { to: ["bob@team.test"], subject: "Hi", text: "From our own domain" } });
    expect(sent.status).toBe(201);
    expect(sent.json).toMatchObject({ status: "queued", from: { email: `help@${name}` } });
    expect(sent.json.message_id).toContain(`@${name}>`);
    expect((await api(`/api/v1/domains/${domain.id}`, { key: admin })).json.inboxes).toBe(1);

    // The domain stops being verified (here: as if it were): sending is refused, nothing stored.
    await (await getDb()).update(mailDomains).set({ status: "failed" }).where(eq(mailDomains.id, domain.id));
    const count = async () => (await (await getDb()).select({ n: sql<number>`count(*)::int` }).from(messages).where(eq(messages.inboxId, inbox.json.id)))[0]!.n;
    const stored = await count();
    const refused = await api(`/api/v1/inboxes/${inbox.json.id}/messages`, { key: agentKey, body: { to: ["bob@team.test"], subject: "Hi", text: "Again" } });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: "domain_not_verified", domain: name, domain_status: "failed", domain_id: domain.id });
    expect(refused.json.detail).toContain(`/v1/domains/${domain.id}/verify`);
    expect(await count()).toBe(stored);
    const reply = await api(`/api/v1/messages/${sent.json.id}/reply`, { key: agentKey, body: { text: "Re" } });
    expect(reply.status).toBe(409);
    expect(reply.json.code).toBe("domain_not_verified");
    // A failed domain verified again is checked afresh: DNS still has the records, so it is verified.
    expect((await api(`/api/v1/domains/${domain.id}/verify`, { key: admin, method: "POST" })).json.status).toBe("verified");

    // Deleting is refused while the inbox is there, then goes, at Resend too.
    const busy = await api(`/api/v1/domains/${domain.id}`, { key: admin, method: "DELETE" });
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ code: "domain_in_use", inboxes: 1 });
    expect((await api(`/api/v1/inboxes/${inbox.json.id}`, { key: agentKey, method: "DELETE" })).status).toBe(200);
    const providerId = (await row(domain.id)).providerId!;
    const gone = await api(`/api/v1/domains/${domain.id}`, { key: admin, method: "DELETE" });
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({ id: domain.id, object: "domain", name, deleted: true });
    expect(fake.domains.has(providerId)).toBe(false);
    expect((await api(`/api/v1/domains/${domain.id}`, { key: admin })).status).toBe(404);
    const actions = (await (await getDb()).select().from(auditEntries).where(eq(auditEntries.resourceId, domain.id))).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["domain.created", "domain.verified", "domain.deleted"]));
  });

  it("many workspaces claiming one domain at once: exactly one gets it, the others 409 domain_taken, and Resend is asked once", async () => {
    const name = uniqueDomain("race");
    const contenders = await Promise.all(Array.from({ length: 12 }, () => setup()));
    const before = fake.requests.filter((r) => r.method === "POST" && r.path === "/domains").length;
    const answers = await Promise.all(contenders.map((c, i) => api("/api/v1/domains", { key: c.admin, body: { name: i % 2 ? name.toUpperCase() : name } })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.json.code).toBe("domain_taken");
    expect(fake.requests.filter((r) => r.method === "POST" && r.path === "/domains").length - before).toBe(1);
    const rows = await (await getDb()).select().from(mailDomains).where(sql`lower(${mailDomains.name}) = ${name}`);
    expect(rows).toHaveLength(1);
    // The winner adding it again is told it has it already.
    const winner = contenders[answers.findIndex((a) => a.status === 201)]!;
    const again = await api("/api/v1/domains", { key: winner.admin, body: { name } });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: "conflict", domain_id: rows[0]!.id });
  });

  it("deleting a domain while inboxes are being created on it: each inbox either lands (and the delete is refused) or is refused, never a 5xx", async () => {
    const { admin, agentKey } = await setup();
    for (let round = 0; round < 4; round++) {
      const name = uniqueDomain(`r${round}`);
      const domain = (await api("/api/v1/domains", { key: admin, body: { name } })).json;
      fake.setDns(name, { spf: true, dkim: true, mx: true });
      expect((await api(`/api/v1/domains/${domain.id}/verify`, { key: admin, method: "POST" })).json.status).toBe("verified");
      const [inbox, deleted] = await Promise.all([
        api("/api/v1/inboxes", { key: agentKey, body: { username: "race", domain: name } }),
        api(`/api/v1/domains/${domain.id}`, { key: admin, method: "DELETE" }),
      ]);
      expect([inbox.status, deleted.status].sort()).toEqual(inbox.status === 201 ? [201, 409] : [200, 404]);
      const left = await (await getDb()).select().from(mailDomains).where(eq(mailDomains.id, domain.id));
      expect(left).toHaveLength(inbox.status === 201 ? 1 : 0);
    }
  });

  it("Resend refusing the name releases the claim (400); Resend down keeps it pending and the scheduled check registers it", async () => {
    const { admin } = await setup();
    const name = uniqueDomain();
    fake.failNext(422, "validation_error", "This domain is not allowed.");
    const refused = await api("/api/v1/domains", { key: admin, body: { name } });
    expect(refused.status).toBe(400);
    expect(refused.json.detail).toContain("This domain is not allowed.");
    expect(await (await getDb()).select().from(mailDomains).where(eq(mailDomains.name, name))).toHaveLength(0);

    fake.failNext(500, "application_error", "Something went wrong");
    const kept = await api("/api/v1/domains", { key: admin, body: { name } });
    expect(kept.status).toBe(201);
    expect(kept.json).toMatchObject({ status: "pending", records: [], last_error: expect.stringContaining("Something went wrong") });
    expect((await row(kept.json.id)).providerId).toBeNull();
    // The check, once due, registers it.
    await (await getDb()).update(mailDomains).set({ nextCheckAt: sql`now()` }).where(eq(mailDomains.id, kept.json.id));
    const checked = await checkDomain(kept.json.id);
    expect(checked).toMatchObject({ status: "pending", retryAt: expect.any(Date) });
    const after = await row(kept.json.id);
    expect(after.providerId).not.toBeNull();
    expect(after.records.map((r) => r.record)).toEqual(["SPF", "SPF", "DKIM", "Receiving"]);
    expect(after.lastError).toBeNull();
  });

  it("a name this deployment's Resend account already has (a removal there that failed) is taken back, not refused", async () => {
    const { admin } = await setup();
    const name = uniqueDomain();
    const earlier = await fetch(`${fake.url}/domains`, { method: "POST", headers: { authorization: `Bearer ${vars.RESEND_API_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name }) });
    const { id: providerId } = (await earlier.json()) as { id: string };
    const res = await api("/api/v1/domains", { key: admin, body: { name } });
    expect(res.status).toBe(201);
    expect(res.json.records.map((r: { record: string }) => r.record)).toEqual(["SPF", "SPF", "DKIM"]);
    expect((await row(res.json.id)).providerId).toBe(providerId);
  });

  it("a round still pending 72 hours after it began fails, once, with domain.failed; nothing is scheduled after", async () => {
    const { workspace, admin } = await setup();
    const name = uniqueDomain();
    const domain = (await api("/api/v1/domains", { key: admin, body: { name } })).json;
    await (await getDb()).update(mailDomains).set({ nextCheckAt: sql`now()`, checksStartedAt: sql`now() - interval '73 hours'` }).where(eq(mailDomains.id, domain.id));
    expect(await checkDomain(domain.id)).toEqual({ status: "failed", retryAt: null });
    const failed = await row(domain.id);
    expect(failed).toMatchObject({ status: "failed", nextCheckAt: null, lastError: expect.stringContaining("72 hours") });
    expect(await checkDomain(domain.id)).toBeNull();
    const events = await eventsOf(workspace.id, "domain.failed");
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ domain: { id: domain.id, status: "failed" } });
  });

  it("the fake checks the API key as Resend does", async () => {
    const missing = await fetch(`${fake.url}/domains`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ statusCode: 401, name: "missing_api_key" });
    const wrong = await fetch(`${fake.url}/domains`, { headers: { authorization: "Bearer re_wrong" } });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ name: "invalid_api_key" });
  });
});
