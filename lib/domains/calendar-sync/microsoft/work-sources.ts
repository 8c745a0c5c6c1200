import { sql } from "drizzle-orm";
import { MICROSOFT_EXPORT_KIND } from "../../../platform/events/export-outbox";

// Microsoft's work kinds, as the registry sees them. Kept apart from the Graph code so that
// listing due work never loads it.

/** Syncs one linked Outlook calendar (delta query), keyed by its connection. */
export const MICROSOFT_SYNC_KIND = "microsoft.sync";
/** Makes Outlook match one export row, keyed by its link. */
export { MICROSOFT_EXPORT_KIND };
/** Opens or renews one link's Graph subscription, due before it expires. */
export const MICROSOFT_RENEW_KIND = "microsoft.renew-subscription";

/** Renewed this long before a subscription expires (Graph lets calendar subscriptions live under 3 days). */
export const SUBSCRIPTION_RENEW_BEFORE_SECONDS = 12 * 3600;

export const microsoftDueLinksSource = () => sql`
  select l.id, l.workspace_id, l.connection_id as key, greatest(l.next_sync_at, coalesce(l.leased_until, l.next_sync_at)) as due_at
  from google_calendar_links l join google_connections c on c.id = l.connection_id
  where c.status in ('active', 'error') and c.provider = 'microsoft'`;

export const microsoftPendingExportsSource = () => sql`
  select x.id, x.workspace_id, x.link_id as key, greatest(x.next_attempt_at, coalesce(x.leased_until, x.next_attempt_at)) as due_at
  from google_event_exports x join google_calendar_links l on l.id = x.link_id join google_connections c on c.id = l.connection_id
  where x.status = 'pending' and x.next_attempt_at is not null and c.provider = 'microsoft'`;

/**
 * Links with a subscription, due a margin before it expires (an event-driven timer, no clock
 * ticking). Links without one are opened at link time and on lifecycle notifications.
 */
export const subscriptionRenewalSource = () => sql`
  select l.id, l.workspace_id, l.connection_id as key,
         l.channel_expires_at - make_interval(secs => ${SUBSCRIPTION_RENEW_BEFORE_SECONDS}) as due_at
  from google_calendar_links l join google_connections c on c.id = l.connection_id
  where c.status = 'active' and c.provider = 'microsoft' and l.channel_id is not null and l.channel_expires_at is not null`;
