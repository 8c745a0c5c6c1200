import { sql } from "drizzle-orm";
import { EXPORT_KIND } from "../../../platform/events/export-outbox";

// Google's work kinds, as the registry sees them. Kept apart from the sync and export code so
// that listing due work never loads the Google client libraries.

/** The work kind that syncs one linked calendar, keyed by its Google connection. */
export const SYNC_KIND = "google.sync";
/** The work kind that makes Google match one export row, keyed by its link. */
export { EXPORT_KIND };

/** Links of usable connections, due at their next sync (push notification, periodic resync, retry). */
export const dueLinksSource = () => sql`
  select l.id, l.workspace_id, l.connection_id as key, greatest(l.next_sync_at, coalesce(l.leased_until, l.next_sync_at)) as due_at
  from google_calendar_links l join google_connections c on c.id = l.connection_id
  where c.status in ('active', 'error') and c.provider = 'google'`;

/** Pending exports (of Google links; an export whose link is gone is Google's to settle, as before). */
export const pendingExportsSource = () => sql`
  select x.id, x.workspace_id, x.link_id as key, greatest(x.next_attempt_at, coalesce(x.leased_until, x.next_attempt_at)) as due_at
  from google_event_exports x
  where x.status = 'pending' and x.next_attempt_at is not null
    and not exists (select 1 from google_calendar_links l join google_connections c on c.id = l.connection_id where l.id = x.link_id and c.provider <> 'google')`;
