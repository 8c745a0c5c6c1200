import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { addDays, zonedDay } from "../../platform/time/zoned";

export const ACTIVITY_DAYS = 30;

export type DailyActivity = {
  day: string;
  holdsGranted: number;
  holdsPreempted: number;
  approvalsAsked: number;
  approvalsDecided: number;
  /** Median seconds from request to decision of the approvals decided that day; null when none. */
  medianDecisionSeconds: number | null;
  deliveriesOk: number;
  deliveriesFailed: number;
  mailIn: number;
  mailOut: number;
};

/**
 * What the workspace did each of the last 30 days (days in `tz`), for the overview's charts:
 * one statement over the tables that already record it (holds, the outbox, approvals,
 * webhook deliveries, messages), each range-bounded by its time column.
 */
export async function dailyActivity(workspaceId: string, tz: string, now = new Date()): Promise<DailyActivity[]> {
  const last = zonedDay(now, tz);
  const first = addDays(last, -(ACTIVITY_DAYS - 1));
  const q = await queryable();
  const { rows } = await q.execute<Record<string, string | number | null>>(sql`
    with days as (
      select d::date as day from generate_series(${first}::date::timestamp, ${last}::date::timestamp, interval '1 day') d
    ), since as (select ((select min(day) from days)::timestamp at time zone ${tz}::text) as t),
    holds_made as (select (created_at at time zone ${tz}::text)::date as day, count(*) as n from holds where workspace_id = ${workspaceId} and created_at >= (select t from since) group by 1),
    preempted as (select (created_at at time zone ${tz}::text)::date as day, count(*) as n from webhook_events where workspace_id = ${workspaceId} and type = 'hold.preempted' and created_at >= (select t from since) group by 1),
    asked as (select (created_at at time zone ${tz}::text)::date as day, count(*) as n from approvals where workspace_id = ${workspaceId} and created_at >= (select t from since) group by 1),
    decided as (
      select (decided_at at time zone ${tz}::text)::date as day, count(*) as n,
        percentile_cont(0.5) within group (order by extract(epoch from decided_at - created_at)) as median
      from approvals where workspace_id = ${workspaceId} and decided_at >= (select t from since) and status in ('approved', 'denied') group by 1
    ),
    deliveries as (
      select (completed_at at time zone ${tz}::text)::date as day, count(*) filter (where status = 'succeeded') as ok, count(*) filter (where status = 'failed') as failed
      from webhook_deliveries where workspace_id = ${workspaceId} and completed_at >= (select t from since) group by 1
    ),
    mail as (
      select (created_at at time zone ${tz}::text)::date as day, count(*) filter (where direction = 'inbound') as inbound, count(*) filter (where direction = 'outbound') as outbound
      from messages where workspace_id = ${workspaceId} and created_at >= (select t from since) group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as day,
      coalesce(holds_made.n, 0)::int as holds_granted, coalesce(preempted.n, 0)::int as holds_preempted,
      coalesce(asked.n, 0)::int as approvals_asked, coalesce(decided.n, 0)::int as approvals_decided, decided.median::float8 as median_decision_seconds,
      coalesce(deliveries.ok, 0)::int as deliveries_ok, coalesce(deliveries.failed, 0)::int as deliveries_failed,
      coalesce(mail.inbound, 0)::int as mail_in, coalesce(mail.outbound, 0)::int as mail_out
    from days
      left join holds_made using (day) left join preempted using (day) left join asked using (day)
      left join decided using (day) left join deliveries using (day) left join mail using (day)
    order by days.day`);
  return rows.map((r) => ({
    day: String(r.day),
    holdsGranted: Number(r.holds_granted),
    holdsPreempted: Number(r.holds_preempted),
    approvalsAsked: Number(r.approvals_asked),
    approvalsDecided: Number(r.approvals_decided),
    medianDecisionSeconds: r.median_decision_seconds === null ? null : Number(r.median_decision_seconds),
    deliveriesOk: Number(r.deliveries_ok),
    deliveriesFailed: Number(r.deliveries_failed),
    mailIn: Number(r.mail_in),
    mailOut: Number(r.mail_out),
  }));
}
