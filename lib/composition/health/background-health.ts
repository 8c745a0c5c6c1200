import { sql } from "drizzle-orm";
import type { Queryable } from "../../../db/client";

/** Work overdue by more than this makes the deployment `degraded`: the sweeper (every 5 minutes) should have found it twice. */
export const BACKLOG_DEGRADED_AFTER_SECONDS = 15 * 60;

/**
 * One queue of one workspace: how many items wait, and for how long the most overdue one has
 * been due (null: none is due yet). A retry scheduled for tomorrow is pending, not overdue.
 */
type Backlog = { pending: number; overdue_seconds: number | null };
export type BackgroundHealth = {
  outbox_events: Backlog;
  webhook_deliveries: Backlog;
  queued_mail: Backlog;
  unsealed_audit_entries: number;
};

type Row = Record<
  "outbox_n" | "outbox_late" | "deliveries_n" | "deliveries_late" | "messages_n" | "messages_late" | "system_n" | "system_late" | "unsealed" | "stale",
  string | number | boolean | null
>;

const num = (v: string | number | boolean | null) => (v === null ? null : Math.max(0, Math.round(Number(v))));
const late = (v: string | number | boolean | null) => (v === null || Number(v) < 0 ? null : num(v));

/**
 * How far background work is behind, in one statement. The deployment's verdict (`stale`) asks
 * each queue's due index whether anything has been due for more than 15 minutes, over every
 * workspace: that is the operator's alarm. The counts are one workspace's (the viewer's), so a
 * tenant's key learns nothing of the others' traffic. An outbox event is due when written; a
 * delivery or a mail when its next attempt is (`next_attempt_at`, `next_send_at`), so an
 * endpoint that has been down for a day, retried on schedule, is not late.
 */
export async function backgroundHealth(q: Queryable, workspaceId: string | null): Promise<{ stale: boolean; workspace: BackgroundHealth | null }> {
  const after = sql`make_interval(secs => ${BACKLOG_DEGRADED_AFTER_SECONDS})`;
  const ws = workspaceId ?? "";
  const { rows } = await q.execute<Row>(sql`
    select
      (exists (select 1 from webhook_events where fanned_out_at is null and created_at < now() - ${after})
        or exists (select 1 from webhook_deliveries where status = 'pending' and next_attempt_at < now() - ${after})
        or exists (select 1 from messages where status = 'queued' and next_send_at < now() - ${after})
        or exists (select 1 from outbound_mail where status = 'queued' and next_attempt_at < now() - ${after})) as stale,
      (select count(*) from webhook_events where fanned_out_at is null and workspace_id = ${ws}) as outbox_n,
      (select extract(epoch from now() - min(created_at)) from webhook_events where fanned_out_at is null and workspace_id = ${ws}) as outbox_late,
      (select count(*) from webhook_deliveries where status = 'pending' and workspace_id = ${ws}) as deliveries_n,
      (select extract(epoch from now() - min(next_attempt_at)) from webhook_deliveries where status = 'pending' and workspace_id = ${ws}) as deliveries_late,
      (select count(*) from messages where status = 'queued' and direction = 'outbound' and workspace_id = ${ws}) as messages_n,
      (select extract(epoch from now() - min(next_send_at)) from messages where status = 'queued' and direction = 'outbound' and workspace_id = ${ws}) as messages_late,
      (select count(*) from outbound_mail where status = 'queued' and workspace_id = ${ws}) as system_n,
      (select extract(epoch from now() - min(next_attempt_at)) from outbound_mail where status = 'queued' and workspace_id = ${ws}) as system_late,
      (select count(*) from audit_entries where hash is null and workspace_id = ${ws}) as unsealed`);
  const r = rows[0]!;
  const stale = r.stale === true || r.stale === "t" || r.stale === "true";
  if (workspaceId === null) return { stale, workspace: null };
  const mailLate = [late(r.messages_late), late(r.system_late)].filter((a): a is number => a !== null);
  return {
    stale,
    workspace: {
      outbox_events: { pending: num(r.outbox_n)!, overdue_seconds: late(r.outbox_late) },
      webhook_deliveries: { pending: num(r.deliveries_n)!, overdue_seconds: late(r.deliveries_late) },
      queued_mail: { pending: num(r.messages_n)! + num(r.system_n)!, overdue_seconds: mailLate.length ? Math.max(...mailLate) : null },
      unsealed_audit_entries: num(r.unsealed)!,
    },
  };
}
