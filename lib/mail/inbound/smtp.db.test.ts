import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import nodemailer from "nodemailer";
import { eq } from "drizzle-orm";
import { newAgent, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { messages } from "../../../db/schema";
import { createInbox } from "../inboxes";
import { operatorActor } from "../../actor";
import { createSmtpListener } from "./smtp-listener";

setTestEnv({ MAIL_MAX_BYTES: "100000", AGENTDRAFT_MAIL_DOMAIN: "agents.test" });

describe("the SMTP listener, with nodemailer as the sending client", () => {
  let server: ReturnType<typeof createSmtpListener>;
  let port: number;
  beforeAll(async () => {
    server = createSmtpListener();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const transport = () => nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, tls: { rejectUnauthorized: false } });

  it("accepts mail for a known inbox and stores it through the same ingestion", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "smtp-agent");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-ops", allow_senders: [], block_senders: [] });
    const info = await transport().sendMail({ from: "bob@team.test", to: inbox.address, subject: "over SMTP", text: "hello by smtp" });
    expect(info.accepted).toEqual([inbox.address]);
    const db = await getDb();
    const stored = await db.select().from(messages).where(eq(messages.inboxId, inbox.id));
    expect(stored.map((m) => [m.subject, m.text])).toEqual([["over SMTP", "hello by smtp"]]);
    expect(info.response).toContain(stored[0]!.id);
  });

  it("refuses unknown recipients with 550", async () => {
    await expect(transport().sendMail({ from: "bob@team.test", to: "nobody@agents.test", subject: "x", text: "y" })).rejects.toMatchObject({
      responseCode: 550,
    });
  });

  it("refuses mail over the size limit with 552, storing nothing", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "big");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-big", allow_senders: [], block_senders: [] });
    await expect(
      transport().sendMail({ from: "bob@team.test", to: inbox.address, subject: "big", text: "x".repeat(150_000) }),
    ).rejects.toMatchObject({ responseCode: 552 });
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(0);
  });
});
