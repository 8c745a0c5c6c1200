import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { resetEnvCache } from "../../lib/platform/config/env";
import { startFakeMicrosoft, type FakeMicrosoft } from "../fakes/microsoft-graph-server";
import { completeMicrosoftConnect, linkMicrosoftCalendar, startMicrosoftConnect } from "../../lib/domains/calendar-sync/microsoft/calendar-sync";
import { handleGraphNotificationRequest } from "../../lib/domains/calendar-sync/microsoft/notifications";
import { createCalendar } from "../../lib/domains/calendars/calendars";
import { operatorActor } from "../../lib/platform/actor";
import { newMember, newWorkspace } from "./fixtures";
import type { MemberRow } from "../../db/schema";

/** A loopback server answering /api/microsoft/notifications with the app's own handler (what the route does), for Graph's validation and notifications. */
async function startNotificationReceiver() {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const answer = req.url?.startsWith("/api/microsoft/notifications") ? await handleGraphNotificationRequest(request) : new Response("not found", { status: 404 });
    res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/**
 * Starts the fake Microsoft identity platform + Graph for this test file and points
 * AgentDraft's Microsoft settings at it (plus `extra` env). With `push`, a loopback receiver
 * serves the notification route and MICROSOFT_NOTIFICATION_BASE_URL names it.
 */
export function withFakeMicrosoft(opts: { push?: boolean; extra?: Record<string, string> } = {}) {
  let fake: FakeMicrosoft;
  let receiver: Awaited<ReturnType<typeof startNotificationReceiver>> | undefined;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    fake = await startFakeMicrosoft();
    receiver = opts.push ? await startNotificationReceiver() : undefined;
    const vars: Record<string, string> = { ...fake.env, MICROSOFT_BACKOFF_BASE_MS: "5", MICROSOFT_RATE_LIMIT_PER_SECOND: "1000", ...(receiver ? { MICROSOFT_NOTIFICATION_BASE_URL: receiver.origin } : {}), ...opts.extra };
    for (const [k, v] of Object.entries(vars)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    resetEnvCache();
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvCache();
    await receiver?.close();
    await fake?.close();
  });
  return () => fake;
}

export const MICROSOFT_CALLBACK = "http://localhost:3000/api/microsoft/oauth/callback";

/** Walks the real OAuth flow against the fake: consent URL → redirect with code and state → callback. */
export async function connectMicrosoft(member: MemberRow) {
  const { url, cookie } = startMicrosoftConnect(member, MICROSOFT_CALLBACK);
  const res = await fetch(url, { redirect: "manual" });
  const back = new URL(res.headers.get("location")!);
  return completeMicrosoftConnect(member, { cookie, state: back.searchParams.get("state"), code: back.searchParams.get("code") });
}

/** A workspace with an admin connected to the fake Microsoft account and one calendar linked to an Outlook calendar of its own. */
export async function linkedOutlookCalendar(fake: FakeMicrosoft) {
  const { workspace } = await newWorkspace();
  const { member, actor } = await newMember(workspace.id, "admin");
  const connection = await connectMicrosoft(member);
  const calendar = await createCalendar(operatorActor(workspace.id), { name: "ops" });
  const mcal = `AAMkAGcal${workspace.id.replace("ws_", "")}`;
  if (!fake.calendars.has(mcal)) fake.addCalendar(mcal, `Calendar of ${workspace.id}`);
  const link = await linkMicrosoftCalendar(actor, { calendar_id: calendar.id, connection_id: connection.id, microsoft_calendar_id: mcal });
  return { workspace, member, actor, connection, calendar, link, mcal };
}
