import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../platform/config/env";
import { randomBytes } from "node:crypto";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";

// The embedded default: no RESEND_API_KEY, mail captured. Domains are accepted as `capture_only`.
const savedKey = process.env.RESEND_API_KEY;
beforeAll(() => {
  delete process.env.RESEND_API_KEY;
  resetEnvCache();
});
afterAll(() => {
  if (savedKey !== undefined) process.env.RESEND_API_KEY = savedKey;
  resetEnvCache();
});
setTestEnv({ AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

describe("workspace domains in capture mode", () => {
  it("accepts a domain as capture_only with a note that nothing is verified; inboxes on it work and their mail is captured", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "ops");
    const { key: admin } = await newKey(workspace.id, { scopes: ["mail"] });
    const { key: agentKey } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
    const name = `support.acme-${randomBytes(5).toString("hex")}.com`;
    const res = await api("/api/v1/domains", { key: admin, body: { name } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name, status: "capture_only", records: [], next_check_at: null, verified_at: null });
    expect(res.json.note).toMatch(/nothing is verified/i);
    // Verifying has nothing to ask: it stays capture_only.
    const verified = await api(`/api/v1/domains/${res.json.id}/verify`, { key: admin, method: "POST" });
    expect(verified.json.status).toBe("capture_only");

    const inbox = await api("/api/v1/inboxes", { key: agentKey, body: { username: "help", domain: name } });
    expect(inbox.status).toBe(201);
    expect(inbox.json.address).toBe(`help@${name}`);
    const sent = await api(`/api/v1/inboxes/${inbox.json.id}/messages`, { key: agentKey, body: { to: ["bob@team.test"], subject: "Hi", text: "Captured" } });
    expect(sent.status).toBe(201);
    expect(sent.json.status).toBe("captured");

    // An inbox on a domain the workspace does not have: 404.
    const unknown = await api("/api/v1/inboxes", { key: agentKey, body: { username: "help", domain: "nope.example.org" } });
    expect(unknown.status).toBe(404);
  });
});
