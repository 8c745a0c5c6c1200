import { expect } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../db/client";
import { googleEventExports } from "../../db/schema";
import { newKey } from "./fixtures";
import type { serveApiForTests } from "./api-client";

type Api = ReturnType<typeof serveApiForTests>["api"];

/**
 * An agent's hold on a linked calendar, committed and its event exported to the provider's fake
 * by `runExport` (Google's or Microsoft's export run): the key that placed it, the AgentDraft
 * event, the export row and the provider's event id.
 */
export async function commitAndExport(
  api: Api,
  setup: { workspace: { id: string }; calendar: { id: string } },
  start: string,
  end: string,
  runExport: (exportId: string) => Promise<unknown>,
): Promise<{ key: string; eventId: string; exportId: string; remoteId: string }> {
  const { key } = await newKey(setup.workspace.id);
  const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: start, end_time: end, hold_ttl_seconds: 60 } });
  expect(hold.status).toBe(201);
  const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
  expect(committed.status).toBe(200);
  const eventId = committed.json.event_ids[0] as string;
  const db = await getDb();
  const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, eventId));
  expect(await runExport(row!.id)).toMatchObject({ ok: true });
  const [exported] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, row!.id));
  return { key, eventId, exportId: row!.id, remoteId: exported!.googleEventId };
}
