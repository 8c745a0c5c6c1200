import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { mcpClients } from "../../../test/helpers/mcp-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { newKey } from "../../../test/helpers/fixtures";
import { getDb } from "../../../db/client";
import { messages } from "../../../db/schema";

setTestEnv({ AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);

describe("draft tools over MCP", () => {
  it("create_draft, update_draft (the version read), list_drafts, send_draft (once, whatever the retries)", async () => {
    const base = await newAgentInbox(api);
    const { key } = await newKey(base.workspace.id, { agent_id: base.agent.id, scopes: ["mail", "approvals"] });
    const client = await connect(key);
    const created = await call(client, "create_draft", { inbox_id: base.inbox.id, to: ["bob@customer.test"], subject: "Numbers", text: "Q1 is up.", idempotency_key: "draft-1" });
    expect(created.structuredContent).toMatchObject({ object: "draft", status: "draft", version: 1 });
    const id = created.structuredContent.id as string;
    expect((await call(client, "create_draft", { inbox_id: base.inbox.id, to: ["bob@customer.test"], subject: "Numbers", text: "Q1 is up.", idempotency_key: "draft-1" })).structuredContent.id).toBe(id);

    const stale = await call(client, "update_draft", { draft_id: id, version: 2, text: "Q1 is down." });
    expect(stale.structuredContent).toMatchObject({ code: "conflict", reason: "stale_version", version: 1 });
    expect((await call(client, "update_draft", { draft_id: id, version: 1, text: "Q1 is up 4%." })).structuredContent).toMatchObject({ version: 2, text: "Q1 is up 4%." });
    const listed = await call(client, "list_drafts", { inbox_id: base.inbox.id });
    expect(listed.structuredContent.data.map((d: { id: string }) => d.id)).toEqual([id]);

    const sent = await call(client, "send_draft", { draft_id: id, version: 2, require_approval: true, idempotency_key: "send-1" });
    expect(sent.structuredContent).toMatchObject({ status: "pending_approval", approval_id: expect.stringMatching(/^appr_/) });
    expect((await call(client, "send_draft", { draft_id: id, version: 2, require_approval: true, idempotency_key: "send-1" })).structuredContent.id).toBe(sent.structuredContent.id);
    expect((await call(client, "send_draft", { draft_id: id })).structuredContent).toMatchObject({ code: "conflict", reason: "draft_awaiting_approval", approval_id: sent.structuredContent.approval_id });
    expect(await (await getDb()).select().from(messages).where(eq(messages.inboxId, base.inbox.id))).toHaveLength(1);
  });
});
