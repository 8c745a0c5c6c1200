import type { GoogleCalendarLinkRow } from "../../../../db/schema";
import { scheduleSync as scheduleAnySync, syncDueLinks as syncDueLinksOf } from "../sync-link";
import { SYNC_KIND } from "./work-sources";

// Google's import runs on the shared engine (lib/domains/calendar-sync/sync-link.ts); these are its Google-facing names.
export { syncLink, syncLinkWork, type SyncResult } from "../sync-link";

/** After the transaction commits (or at once): sync this link now. */
export const scheduleSync = (link: Pick<GoogleCalendarLinkRow, "id" | "workspaceId" | "connectionId">) => scheduleAnySync({ syncKind: SYNC_KIND }, link);

/** Syncs every Google link that is due now (tests and the CLI; in the server each link is its own run); `workspaceId` keeps to one workspace's. */
export async function syncDueLinks(limit = 25, opts: { workspaceId?: string } = {}): Promise<number> {
  const { googleProvider } = await import("./provider");
  return syncDueLinksOf(googleProvider, limit, opts);
}
