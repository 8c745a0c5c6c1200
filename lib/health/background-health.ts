import { sql } from "drizzle-orm";
import type { Queryable } from "../../db/client";

/** A backlog older than this makes the deployment `degraded`: the sweeper (every 5 minutes) should have found it twice. */
export const BACKLOG_DEGRADED_AFTER_SECONDS = 15 * 60;

type Backlog = { pending: number; oldest_age_seconds: number | null };
export type BackgroundHealth = {
  outbox_events: Backlog;
  webhook_deliveries: Backlog;
  queued_mail: Backlog;
  unsealed_audit_entries: number;
};

type Row = Record<"outbox_n" | "outbox_age" | "deliveries_n" | "deliveries_age" | "messages_n" | "messages_age" | "system_n" | "system_age" | "unsealed", string | number | null>;

const num = (v: string | number | null) => (v === null ? null : Math.round(Number(v)));

/**
 * How far background work is behind, over the whole deployment, in one statement on the
 * partial indexes of each queue: events not yet fanned out (the outbox), webhook deliveries
 * and mail waiting to go out (agents' messages and system mail), audit entries not yet sealed.
 */
export async function backgroundHealth(q: Queryable): Promise<BackgroundHealth> {
  const { rows } = await q.execute<Row>(sql`
    select
      (select count(*) from webhook_events where fanned_out_at is null) as outbox_n,
      (select extract(epoch from now() - min(created_at)) from webhook_events where fanned_out_at is null) as outbox_age,
      (select count(*) from webhook_deliveries where status = 'pending') as deliveries_n,
      (select extract(epoch from now() - min(created_at)) from webhook_deliveries where status = 'pending') as deliveries_age,
      (select count(*) from messages where status = 'queued' and direction = 'outbound') as messages_n,
      (select extract(epoch from now() - min(created_at)) from messages where status = 'queued' and direction = 'outbound') as messages_age,
      (select count(*) from outbound_mail where status = 'queued') as system_n,
      (select extract(epoch from now() - min(created_at)) from outbound_mail where status = 'queued') as system_age,
      (select count(*) from audit_entries where hash is null) as unsealed`);
  const r = rows[0]!;
  const ages = [num(r.messages_age), num(r.system_age)].filter((a): a is number => a !== null);
  return {
    outbox_events: { pending: num(r.outbox_n)!, oldest_age_seconds: num(r.outbox_age) },
    webhook_deliveries: { pending: num(r.deliveries_n)!, oldest_age_seconds: num(r.deliveries_age) },
    queued_mail: { pending: num(r.messages_n)! + num(r.system_n)!, oldest_age_seconds: ages.length ? Math.max(...ages) : null },
    unsealed_audit_entries: num(r.unsealed)!,
  };
}

/** Whether some backlog is older than it should ever be. */
export const backlogIsStale = (b: BackgroundHealth) =>
  [b.outbox_events, b.webhook_deliveries, b.queued_mail].some((x) => (x.oldest_age_seconds ?? 0) > BACKLOG_DEGRADED_AFTER_SECONDS);
