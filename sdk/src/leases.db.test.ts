import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../test/helpers/fixtures";
import { setTestEnv } from "../../test/helpers/env";
import { AgentDraftError, createAgentDraftClient, unwrap, withLease } from "./index";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { url } = serveApiForTests();

describe("@agentdraft/client leases", () => {
  it("withLease holds the resource while the work runs (renewing it), releases it after, and a rival gets a typed lease_conflict", async () => {
    const { workspace } = await newWorkspace();
    const [a, b] = [await newAgent(workspace.id, "a"), await newAgent(workspace.id, "b")];
    const clientA = createAgentDraftClient({ apiKey: (await newKey(workspace.id, { agent_id: a.id })).key, baseUrl: url() });
    const clientB = createAgentDraftClient({ apiKey: (await newKey(workspace.id, { agent_id: b.id })).key, baseUrl: url() });
    let rival: unknown;
    const token = await withLease(clientA, { resource: "deploy:staging", ttlSeconds: 1, renewEveryMs: 300 }, async (lease, signal) => {
      await new Promise((r) => setTimeout(r, 1500)); // longer than the TTL: only the renewals keep it
      rival = await withLease(clientB, { resource: "deploy:staging", ttlSeconds: 5 }, async () => "won").catch((e) => e);
      expect(signal.aborted).toBe(false);
      const verdict = unwrap(await clientB.POST("/v1/leases/verify", { body: { resource: "deploy:staging", fencing_token: lease.fencing_token } }));
      expect(verdict.valid).toBe(true);
      return lease.fencing_token;
    });
    expect(token).toBe(1);
    expect(rival).toBeInstanceOf(AgentDraftError);
    expect((rival as AgentDraftError).code).toBe("lease_conflict");
    const next = await withLease(clientB, { resource: "deploy:staging", ttlSeconds: 5 }, async (lease) => lease.fencing_token);
    expect(next).toBe(2);
    const mine = unwrap(await clientA.GET("/v1/leases", { params: { query: { resource: "deploy:staging" } } }));
    expect(mine.data.map((l) => l.status)).toEqual(["released"]);
  });
});
