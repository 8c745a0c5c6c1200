// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { googleEventExports } from "../../../db/schema";
import { resetEnvCache } from "../config/env";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../test/helpers/google";
import { newKey } from "../../../test/helpers/fixtures";
import { runDueExports } from "../../domains/calendar-sync/google/export-event";
import { disconnectGoogle } from "../../domains/calendar-sync/google/connections";
import { listCaptures } from "./captures";
import { onUtcDay } from "../../../test/helpers/clock";

// A preview's copy of production's calendar links: a committed event is not written to the
// person's Google calendar, only recorded (lib/platform/outbound/preview-capture.db.test.ts does the rest).
const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
const T = onUtcDay(30);

describe("a preview deployment and calendar writes", () => {
  it("captures an export to Google instead of writing it, and writes it when told to", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { key } = await newKey(setup.workspace.id);
    const commit = async (h: number) => {
      const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(h), end_time: T(h + 1), hold_ttl_seconds: 60 } });
      const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
      return committed.json.event_ids[0] as string;
    };
    process.env.AGENTDRAFT_PREVIEW = "1";
    resetEnvCache();
    try {
      const eventId = await commit(10);
      await runDueExports();
      expect(fake.liveEvents(setup.gcal)).toEqual([]);
      const [row] = await (await getDb()).select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, eventId));
      expect(row).toMatchObject({ status: "exported" });
      expect(await listCaptures(setup.workspace.id)).toEqual([expect.objectContaining({ kind: "calendar", target: `Google Calendar: ${setup.gcal}`, summary: expect.objectContaining({ calendar_event_id: eventId, write: "upsert" }) })]);

      // Disconnecting on a preview would revoke production's grant (the branch copied its token): not done.
      const revokes = () => fake.requests.filter((r) => r.path === "/revoke").length;
      const before = revokes();
      const out = await disconnectGoogle(setup.actor, setup.connection.id);
      expect(out.revokeError).toBeNull();
      expect(revokes()).toBe(before);
      expect((await listCaptures(setup.workspace.id)).map((c) => c.summary.write)).toEqual(["revoke", "upsert"]);

      process.env.AGENTDRAFT_PREVIEW_SEND = "calendar";
      resetEnvCache();
      const sent = await linkedCalendar(fake);
      const { key: sentKey } = await newKey(sent.workspace.id);
      const hold = await api(`/api/v1/calendars/${sent.calendar.id}/holds`, { key: sentKey, body: { start_time: T(12), end_time: T(13), hold_ttl_seconds: 60 } });
      expect((await api(`/api/v1/holds/${hold.json.id}/commit`, { key: sentKey, method: "POST" })).status).toBe(200);
      await runDueExports();
      expect(fake.liveEvents(sent.gcal)).toHaveLength(1);
    } finally {
      delete process.env.AGENTDRAFT_PREVIEW;
      delete process.env.AGENTDRAFT_PREVIEW_SEND;
      resetEnvCache();
    }
  });
});
