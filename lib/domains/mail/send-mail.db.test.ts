import { describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { outboundMail } from "../../../db/schema";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { sendMail, configuredTransport, queueMail, type MailTransport } from "./send-mail";
import { transaction } from "../../../db/transaction";
import { listMail } from "./list-mail";

describe("queueMail (notices written by background work)", () => {
  it("never fails on tenant input: a long, multi-line subject is clamped, and 120 recipients become three mails", async () => {
    const { workspace } = await newWorkspace();
    const to = Array.from({ length: 120 }, (_, i) => `member-${i}@team.test`);
    const queued = await transaction((tx) =>
      queueMail(tx, { workspaceId: workspace.id, to, subject: `Webhook endpoint disabled: https://x.test/${"a".repeat(2000)}\r\nBcc: evil@x.test`, text: "t", kind: "test_notice" }),
    );
    expect(queued.ids).toHaveLength(3);
    const rows = await (await getDb()).select().from(outboundMail).where(eq(outboundMail.workspaceId, workspace.id));
    expect(rows.map((r) => r.to.length).sort((a, b) => a - b)).toEqual([20, 50, 50]);
    expect(new Set(rows.flatMap((r) => r.to))).toEqual(new Set(to));
    for (const r of rows) {
      expect(r.subject.length).toBeLessThanOrEqual(300);
      expect(r.subject).not.toMatch(/[\r\n]/);
    }
  });
});

describe("sendMail", () => {
  it("captures mail in the database when no provider is configured", async () => {
    expect(configuredTransport()).toBeNull();
    const { workspace } = await newWorkspace();
    const sent = await sendMail({ workspaceId: workspace.id, to: "ada@example.test", subject: "Hello", text: "Hi Ada", kind: "test" });
    expect(sent).toEqual({ id: expect.stringMatching(/^mail_/), status: "captured" });
    const { items } = await listMail(workspace.id, { status: "captured" });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: sent.id, to: ["ada@example.test"], subject: "Hello", text: "Hi Ada", kind: "test", status: "captured", providerId: null });
    expect(items[0]!.from).toMatch(/AgentDraft/);
  });

  it("sends through the transport when there is one, and records the provider's id", async () => {
    const { workspace } = await newWorkspace();
    const transport = vi.fn<MailTransport>(async () => ({ providerId: "re_123" }));
    const sent = await sendMail({ workspaceId: workspace.id, to: ["a@example.test", "b@example.test"], subject: "S", text: "T", html: "<p>T</p>", kind: "test" }, transport);
    expect(sent.status).toBe("sent");
    expect(transport).toHaveBeenCalledWith(expect.objectContaining({ to: ["a@example.test", "b@example.test"], subject: "S", html: "<p>T</p>" }));
    const [row] = await (await getDb()).select().from(outboundMail).where(eq(outboundMail.id, sent.id));
    expect(row).toMatchObject({ status: "sent", providerId: "re_123" });
  });

  it("records nothing when the provider refuses, and says why", async () => {
    const { workspace } = await newWorkspace();
    const transport: MailTransport = async () => {
      throw new Error("Resend refused the message: domain not verified");
    };
    await expect(sendMail({ workspaceId: workspace.id, to: "x@example.test", subject: "S", text: "T", kind: "test" }, transport)).rejects.toThrow(/domain not verified/);
    expect((await listMail(workspace.id)).items).toEqual([]);
  });

  it("rejects a malformed address before sending", async () => {
    const { workspace } = await newWorkspace();
    await expect(sendMail({ workspaceId: workspace.id, to: "not-an-address", subject: "S", text: "T", kind: "test" })).rejects.toThrow();
  });

  it("keeps each workspace's mail to itself", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await sendMail({ workspaceId: a.workspace.id, to: "a@example.test", subject: "S", text: "T", kind: "test" });
    expect((await listMail(b.workspace.id)).items).toEqual([]);
  });
});
