import { describe, it } from "vitest";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedOutlookCalendar, withFakeMicrosoft } from "../../../../test/helpers/microsoft";
import { runDriftChaos } from "../../../../test/helpers/drift-chaos";
import { EVENT_PROPERTY_ID } from "./provider";
import { runDueMicrosoftExports } from "./calendar-sync";

const fakeMicrosoft = withFakeMicrosoft({ extra: { API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" } });
const { api } = serveApiForTests();

const utc = (d: Date) => ({ dateTime: d.toISOString().replace("Z", "0000"), timeZone: "UTC" });
const instant = (t: { dateTime: string }) => new Date(`${t.dateTime.replace(/Z$/, "").slice(0, 23)}Z`);

describe("randomized drift (Microsoft 365 / Outlook)", () => {
  it("agents commit and re-book while a person moves, deletes and declines in Outlook, syncs and checks racing: in the end AgentDraft and Outlook agree", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    // Inside the delta window (a week back to 400 days ahead).
    const day = new Date(Date.now() + 3 * 86_400_000);
    day.setUTCHours(8, 0, 0, 0);
    await runDriftChaos(
      {
        name: "microsoft",
        workspaceId: setup.workspace.id,
        calendarId: setup.calendar.id,
        linkId: setup.link.id,
        live: () =>
          fake.liveEvents(setup.mcal).map((e) => ({
            id: e.id,
            tag: e.singleValueExtendedProperties?.find((p) => p.id.toLowerCase() === EVENT_PROPERTY_ID.toLowerCase())?.value ?? null,
            start: instant(e.start),
            end: instant(e.end),
          })),
        move: (id, start, end) => void fake.updateEvent(setup.mcal, id, { start: utc(start), end: utc(end) }),
        remove: (id) => fake.removeEvent(setup.mcal, id),
        decline: (id) => void fake.updateEvent(setup.mcal, id, { attendees: [{ type: "required", emailAddress: { address: "guest@example.com" }, status: { response: "declined" } }] }),
        expireToken: () => fake.expireDeltaTokens(),
        runExports: () => runDueMicrosoftExports(50),
      },
      api,
      { seedEnv: "MICROSOFT_DRIFT_SEED", day },
    );
  });
});
