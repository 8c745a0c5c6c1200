import { sql } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { jsonValue } from "../../db/row-json";
import { AppError } from "../errors";
import type { EventType } from "./emit-event";
import { eventPayload } from "./payload";

/**
 * A place in the event stream: (writing transaction's id, sequence). Printed as `<txid>.<seq>`,
 * the SSE `id`, which a client sends back as `Last-Event-ID`.
 *
 * Why not the sequence alone: two transactions can commit out of the order their rows were
 * numbered, so a reader past sequence 8 could miss a 7 that becomes visible after it. Instead a
 * read returns only events of transactions older than its snapshot's xmin (every transaction
 * before xmin has ended: its events are all visible, or never will be), ordered by
 * (txid, seq). Any event that becomes visible later belongs to a transaction at or after that
 * xmin, so it sorts after everything already returned: the order is total over committed events
 * and a position, once passed, is never filled in behind the reader.
 */
export type StreamPosition = { txid: string; seq: string };

const POSITION = /^(\d{1,19})\.(-1|\d{1,19})$/;

export const formatPosition = (p: StreamPosition) => `${p.txid}.${p.seq}`;

export function parsePosition(value: string, field = "Last-Event-ID"): StreamPosition {
  const m = POSITION.exec(value.trim());
  if (!m || BigInt(m[1]!) > 2n ** 63n - 1n || (m[2] !== "-1" && BigInt(m[2]!) > 2n ** 63n - 1n)) {
    throw new AppError("validation_failed", `${field} must be an event id this stream sent (such as 812.40).`, {
      errors: [{ field, message: "not an event stream position" }],
    });
  }
  return { txid: m[1]!, seq: m[2]! };
}

export type StreamFilter = {
  workspaceId: string;
  /** Set for agent-bound keys: only events of this agent (what an endpoint filtered to it receives). */
  agentId: string | null;
  /** Never empty: the caller has narrowed it to what the key may see. */
  types: readonly EventType[];
  /** Only events created at or after this time. */
  since?: Date;
};

export type StreamEvent = { position: string; payload: ReturnType<typeof eventPayload> };

type Row = { horizon: string; id: string | null; type: string; data: unknown; trace_id: string | null; created_ms: string; txid: string; seq: string };

/**
 * The next events after `after` (null: from now on), at most `limit`, and the position to read
 * from next: the last event returned, or, when the read was not cut short, the horizon (so a
 * key that sees few of a busy workspace's events does not rescan the others).
 */
export async function readEvents(filter: StreamFilter, after: StreamPosition | null, limit = 100): Promise<{ events: StreamEvent[]; next: StreamPosition }> {
  const from = after ?? (filter.since ? { txid: "0", seq: "-1" } : null);
  const q = await queryable();
  const { rows } = await q.execute<Row>(sql`
    with h as (select (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint as horizon)
    select h.horizon::text as horizon, e.id, e.type, e.data, e.trace_id,
      floor(extract(epoch from e.created_at) * 1000)::bigint::text as created_ms, e.txid::text as txid, e.seq::text as seq
    from h left join lateral (
      select * from webhook_events e
      where ${from ? sql`e.workspace_id = ${filter.workspaceId}` : sql`false`}
        and (e.txid, e.seq) > (${from?.txid ?? "0"}::bigint, ${from?.seq ?? "0"}::bigint) and e.txid < h.horizon
        and e.type in (${sql.join(filter.types.map((t) => sql`${t}`), sql`, `)})
        ${filter.agentId ? sql`and e.agent_id = ${filter.agentId}` : sql``}
        ${filter.since ? sql`and e.created_at >= ${filter.since.toISOString()}::timestamptz` : sql``}
      order by e.txid, e.seq
      limit ${limit}
    ) e on true`);
  const horizon = rows[0]!.horizon;
  const events = rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      position: formatPosition(r),
      payload: eventPayload({ id: r.id!, type: r.type, data: jsonValue(r.data), traceId: r.trace_id, createdAt: new Date(Number(r.created_ms)) }),
    }));
  const last = events.length ? rows[rows.length - 1]! : null;
  const next = events.length === limit ? { txid: last!.txid, seq: last!.seq } : { txid: horizon, seq: "-1" };
  // Never move backwards (the horizon of a later read is never lower, but a client's own position may be ahead of it).
  return { events, next: from && compare(next, from) < 0 ? from : next };
}

/**
 * The stream's head: where a reader starting now begins (the horizon, see StreamPosition).
 * Every position a server of this database has issued is at or before it, for good: the
 * horizon never moves back.
 */
export async function streamHead(): Promise<StreamPosition> {
  const q = await queryable();
  const { rows } = await q.execute<{ horizon: string }>(sql`select (pg_snapshot_xmin(pg_current_snapshot())::text) as horizon`);
  return { txid: rows[0]!.horizon, seq: "-1" };
}

/**
 * A resume position checked against the head. One past it was never issued here (a cursor from
 * another deployment, a database restored from a backup, a made-up one): read from, it would
 * wait for events that may never come, silently. It is refused with a 400 that says where the
 * head is, or, with `clamp` (a browser's EventSource, which cannot act on a refusal), moved to it.
 */
export async function resumeFrom(after: StreamPosition, field = "Last-Event-ID", o: { clamp?: boolean } = {}): Promise<StreamPosition> {
  const head = await streamHead();
  if (compare(after, head) <= 0) return after;
  if (o.clamp) return head;
  const at = formatPosition(head);
  throw new AppError(
    "validation_failed",
    `${field} ${formatPosition(after)} is past the stream's head, ${at}: this server never sent it (a cursor from another deployment or from before a restore?). Resume from ${at} (what is new from now on), or with ?since= to read back in time.`,
    { head: at, errors: [{ field, message: `is past the stream's head (${at})` }] },
  );
}

export function compare(a: StreamPosition, b: StreamPosition): number {
  const d = BigInt(a.txid) - BigInt(b.txid) || BigInt(a.seq) - BigInt(b.seq);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
