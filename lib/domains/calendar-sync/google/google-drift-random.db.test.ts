import { describe, it } from "vitest";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { runDriftChaos } from "../../../../test/helpers/drift-chaos";
import { runDueExports } from "./export-event";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

describe("randomized drift (Google)", () => {
  it("agents commit and re-book while a person moves, deletes and declines at Google and Google loses events, syncs and checks racing: in the end AgentDraft and Google agree", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const day = new Date(Date.now() + 3 * 86_400_000);
    day.setUTCHours(8, 0, 0, 0);
    const cal = () => fake.calendars.get(setup.gcal)!;
    await runDriftChaos(
      {
        name: "google",
        workspaceId: setup.workspace.id,
        calendarId: setup.calendar.id,
        linkId: setup.link.id,
        live: () =>
          fake.liveEvents(setup.gcal).map((e) => ({ id: e.id, tag: e.extendedProperties?.private?.agentdraft_event_id ?? null, start: new Date(e.start!.dateTime!), end: new Date(e.end!.dateTime!) })),
        move: (id, start, end) => void fake.moveEvent(setup.gcal, id, start.toISOString(), end.toISOString()),
        remove: (id) => fake.deleteEvent(setup.gcal, id),
        decline: (id) =>
          void fake.updateEvent(setup.gcal, id, {
            attendees: [
              { email: fake.email, self: true, organizer: true, responseStatus: "accepted" },
              { email: "guest@example.com", responseStatus: "declined" },
            ],
          }),
        lose: (id) => void cal().events.delete(id),
        expireToken: () => fake.expireSyncTokens(),
        runExports: () => runDueExports(50),
      },
      api,
      { seedEnv: "GOOGLE_DRIFT_SEED", day },
    );
  });
});
