// @suite moved-clock
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { googleEventExports, notificationMessages } from "../../../../db/schema";
import { resetEnvCache } from "../../../platform/config/env";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { newKey, newMember } from "../../../../test/helpers/fixtures";
import { startFakeSlack, type FakeSlack } from "../../../../test/helpers/fake-slack";
import { createChannel } from "../../notifications/channels";
import { createChannelInput } from "../../notifications/schemas";
import { deliverNotification } from "../../notifications/deliver-notification";
import { runExport } from "./export-event";
import { syncLink } from "./sync-calendar";
import { onUtcDay } from "../../../../test/helpers/clock";

// A person's change to a committed meeting reaches people too: the notification channels that
// take event.moved_externally / event.cancelled_externally / event.conflicted get a message.

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
let slack: FakeSlack;
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  slack = await startFakeSlack({ channels: ["C0MEETINGS"] });
  saved.SLACK_API_URL = process.env.SLACK_API_URL;
  process.env.SLACK_API_URL = slack.apiUrl;
  resetEnvCache();
});
afterAll(async () => {
  if (saved.SLACK_API_URL === undefined) delete process.env.SLACK_API_URL;
  else process.env.SLACK_API_URL = saved.SLACK_API_URL;
  resetEnvCache();
  await slack?.close();
});

const T = onUtcDay(30);
/** As the notification writes a time: "YYYY-MM-DD HH:MM UTC". */
const shown = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

describe("a person's change to a committed meeting, told to people", () => {
  it("moved, deleted and double-booked each post one Slack message to a channel that takes them; seen again, nothing more; a channel that does not take them gets none", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const owner = await newMember(setup.workspace.id, "owner");
    const types = ["event.moved_externally", "event.cancelled_externally", "event.conflicted"];
    const ch = await createChannel(owner.member, createChannelInput.parse({ name: "meetings", kind: "slack", secret: "xoxb-test-token", slack_channel_id: "C0MEETINGS", notification_types: types }));
    const other = await createChannel(owner.member, createChannelInput.parse({ name: "approvals", kind: "slack", secret: "xoxb-test-token", slack_channel_id: "C0MEETINGS", notification_types: ["approval.requested"] }));
    await syncLink(setup.link.id);
    const { key } = await newKey(setup.workspace.id);
    const db = await getDb();
    const commit = async (start: string, end: string) => {
      const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: start, end_time: end, hold_ttl_seconds: 60, metadata: { title: "Staging review" } } });
      expect(hold.status).toBe(201);
      const eventId = (await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" })).json.event_ids[0] as string;
      const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, eventId));
      expect(await runExport(row!.id)).toMatchObject({ ok: true });
      return { eventId, remoteId: row!.googleEventId };
    };
    const moved = await commit(T(10), T(11));
    const deleted = await commit(T(12), T(13));
    const booked = await commit(T(14), T(15));
    await syncLink(setup.link.id);

    fake.moveEvent(setup.gcal, moved.remoteId, T(16), T(17));
    fake.deleteEvent(setup.gcal, deleted.remoteId);
    fake.addEvent(setup.gcal, { id: "overlap1", start: T(14, 30), end: T(15, 30) });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 3 });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });

    const rows = await db.select().from(notificationMessages).where(eq(notificationMessages.channelId, ch.id));
    expect(rows.map((r) => [r.type, r.subjectId]).sort()).toEqual(
      [
        ["event.moved_externally", moved.eventId],
        ["event.cancelled_externally", deleted.eventId],
        ["event.conflicted", booked.eventId],
      ].sort(),
    );
    expect(await db.select().from(notificationMessages).where(eq(notificationMessages.channelId, other.id))).toEqual([]);
    for (const r of rows) expect(await deliverNotification(r.id)).toMatchObject({ result: "sent" });

    const posted = slack.messagesIn("C0MEETINGS");
    expect(posted).toHaveLength(3);
    const text = (p: (typeof posted)[number]) => `${p.text} ${JSON.stringify(p.blocks)}`;
    const movedMsg = posted.find((p) => text(p).includes("Meeting moved by a person"))!;
    expect(text(movedMsg)).toContain("Staging review");
    expect(text(movedMsg)).toContain(`${shown(T(10))} – ${shown(T(11))}`);
    expect(text(movedMsg)).toContain(`${shown(T(16))} – ${shown(T(17))}`);
    expect(text(movedMsg)).toContain(`/calendars/${setup.calendar.id}`);
    expect(text(posted.find((p) => text(p).includes("Meeting deleted or declined by a person"))!)).toContain("was deleted in Google Calendar");
    expect(text(posted.find((p) => text(p).includes("Meeting double-booked"))!)).toContain("1 other commitment");
  });
});
