import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { newAgent, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { outboundMail } from "../../../db/schema";
import { createApproval } from "./create-approval";
import { notifyApproval } from "./notify-approvers";
import { appOrigin } from "../notifications/load-notice";

// Issue #37: with AUTH_URL unset, a notice built by a background job (no request, no Host
// header) links to this server, not to a guessed http://localhost:3000.

setTestEnv({ AUTH_URL: "", PORT: "4567" });

describe("links in notices built by background jobs", () => {
  it("point at this server's public URL, the one requests use", async () => {
    delete process.env.AUTH_URL; // unset, not empty
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    await newMember(workspace.id, "owner");
    const actor = { type: "key" as const, workspaceId: workspace.id, keyId: "key_00000000000000000000000000", agentId: agent.id };
    const approval = await createApproval(actor, { summary: "Refund order A-9", evidence: { order: "A-9" } });
    expect(await notifyApproval(approval.id)).toBe(true);
    const [mail] = await (await getDb()).select().from(outboundMail).where(and(eq(outboundMail.workspaceId, workspace.id), eq(outboundMail.kind, "approval_requested")));
    expect(mail!.text).toContain("http://localhost:4567/approvals");
    expect(mail!.text).not.toContain("localhost:3000");
    expect(appOrigin()).toBe("http://localhost:4567");
  });
});
