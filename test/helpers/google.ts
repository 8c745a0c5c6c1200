import { afterAll, beforeAll } from "vitest";
import { resetEnvCache } from "../../lib/platform/config/env";
import { startFakeGoogle, type FakeGoogle } from "../fakes/google-calendar-server";
import { completeGoogleConnect, startGoogleConnect } from "../../lib/domains/calendar-sync/google/connections";
import { linkCalendar } from "../../lib/domains/calendar-sync/google/links";
import { createCalendar } from "../../lib/domains/calendars/calendars";
import { operatorActor } from "../../lib/platform/actor";
import { newMember, newWorkspace } from "./fixtures";
import type { MemberRow } from "../../db/schema";

/**
 * Starts the fake Google server for this test file and points AgentDraft's Google settings at
 * it (plus `extra` env), restoring the environment afterwards.
 */
export function withFakeGoogle(extra: Record<string, string> = {}) {
  let fake: FakeGoogle;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    fake = await startFakeGoogle();
    const vars = { ...fake.env, GOOGLE_BACKOFF_BASE_MS: "5", GOOGLE_RATE_LIMIT_PER_SECOND: "1000", ...extra };
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
    await fake?.close();
  });
  return () => fake;
}

export const CALLBACK = "http://localhost:3000/api/google/oauth/callback";

/** Walks the real OAuth flow against the fake: consent URL → redirect with code and state → callback. */
export async function connectGoogle(member: MemberRow) {
  const { url, cookie } = startGoogleConnect(member, CALLBACK);
  const res = await fetch(url, { redirect: "manual" });
  const back = new URL(res.headers.get("location")!);
  return completeGoogleConnect(member, { cookie, state: back.searchParams.get("state"), code: back.searchParams.get("code") });
}

/** A workspace with an admin connected to the fake Google account and one calendar linked to `googleCalendarId`. */
export async function linkedCalendar(fake: FakeGoogle, googleCalendarId?: string) {
  const { workspace } = await newWorkspace();
  const { member, actor } = await newMember(workspace.id, "admin");
  const connection = await connectGoogle(member);
  const calendar = await createCalendar(operatorActor(workspace.id), { name: "ops" });
  const gcal = googleCalendarId ?? `${workspace.id.replace("ws_", "")}@group.calendar.google.com`;
  if (!fake.calendars.has(gcal)) fake.addCalendar(gcal, `Calendar of ${workspace.id}`);
  const link = await linkCalendar(actor, { calendar_id: calendar.id, connection_id: connection.id, google_calendar_id: gcal });
  return { workspace, member, actor, connection, calendar, link, gcal };
}
