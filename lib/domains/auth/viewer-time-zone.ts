import { cache } from "react";
import { cookies } from "next/headers";
import { eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { users } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { AppError } from "../../platform/errors";
import { isTimeZone } from "../../platform/time/zoned";
import { currentUser } from "./current-member";

/** Set by a tiny script on every page to the browser's zone (app/time-zone-script.tsx). */
export const TIME_ZONE_COOKIE = "agentdraft-tz";

export type ViewerTimeZone = { zone: string; source: "setting" | "browser" | "default"; browser: string | null };

/** The zone the web app shows this request's times in: the person's setting, else their browser's, else UTC. */
export const viewerTimeZone = cache(async (): Promise<ViewerTimeZone> => {
  const raw = (await cookies()).get(TIME_ZONE_COOKIE)?.value;
  let browser: string | null = null;
  try {
    browser = raw && isTimeZone(decodeURIComponent(raw)) ? decodeURIComponent(raw) : null;
  } catch {
    browser = null;
  }
  const user = await currentUser();
  if (user) {
    const db = await getDb();
    const [row] = await db.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, user.id));
    if (row?.timeZone && isTimeZone(row.timeZone)) return { zone: row.timeZone, source: "setting", browser };
  }
  return browser ? { zone: browser, source: "browser", browser } : { zone: "UTC", source: "default", browser };
});

/** A person's zone for the web app (null: follow the browser), audited in the workspace they changed it from. */
export async function setUserTimeZone(actor: Actor & { type: "member" }, userId: string, zone: string | null): Promise<void> {
  if (zone !== null && !isTimeZone(zone)) {
    throw new AppError("validation_failed", "time_zone: an IANA time zone such as Europe/Berlin", { errors: [{ field: "time_zone", message: "unknown time zone" }] });
  }
  await transaction(async (tx) => {
    await tx.update(users).set({ timeZone: zone }).where(eq(users.id, userId));
    await appendAudit(tx, [{ actor, action: "member.time_zone_set", resource: { type: "member", id: actor.memberId }, summary: { time_zone: zone } }]);
  });
}
