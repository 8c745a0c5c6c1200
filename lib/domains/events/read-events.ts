import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { jsonValue } from "../../../db/row-json";
import { AppError } from "../../platform/errors";
import type { EventType } from "../../platform/events/emit-event";
import { eventPayload } from "../../platform/events/payload";

/**
 * A place in a workspace's event stream: the position its sealer gave an event, printed as a
 * decimal number, the SSE `id`, which a client sends back as `Last-Event-ID`.
 *
 * Why a sealer: two transactions can commit out of the order their rows were numbered, so a
 * reader past an insertion number 8 could miss a 7 that becomes visible after it. So writers
 * number nothing: an event is written with a null position, and the workspace's sealer
 * (`agentdraft_seal_events`, run by readers before they read) gives the events that have
 * committed (exactly those its statement sees) the workspace's next positions, under a lock on
 * the workspace's `event_stream_heads` row. A workspace's sealers run one at a time and commit in
 * order, so a reader that sees position N sees every position before it: a position, once passed,
 * is never filled in behind the reader. An open transaction holds back only its own events:
 * never another workspace's stream, nor events of its own workspace that committed meanwhile.
 *
 * `<txid>.<seq>` cursors of the previous design are still accepted on resume (`resumeFrom`).
 */
export type StreamPosition = { position: string };

const POSITION = /^(\d{1,19})$/;
/** A cursor of the previous design: (writing transaction, sequence), before positions. */
const LEGACY_POSITION = /^(\d{1,19})\.(-1|\d{1,19})$/;
const MAX = 2n ** 63n - 1n;

export const formatPosition = (p: StreamPosition) => p.position;

/** A cursor as a client sent it: a position, or a legacy `<txid>.<seq>` one (translated by `resumeFrom`). */
export type GivenPosition = StreamPosition | { legacy: { txid: string; seq: string } };

export function parsePosition(value: string, field = "Last-Event-ID"): GivenPosition {
  const v = value.trim();
  const m = POSITION.exec(v);
  if (m && BigInt(m[1]!) <= MAX) return { position: BigInt(m[1]!).toString() };
  const l = LEGACY_POSITION.exec(v);
  if (l && BigInt(l[1]!) <= MAX && (l[2] === "-1" || BigInt(l[2]!) <= MAX)) return { legacy: { txid: l[1]!, seq: l[2]! } };
  throw new AppError("validation_failed", `${field} must be an event id this stream sent (such as 8125).`, {
    errors: [{ field, message: "not an event stream position" }],
  });
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

type Row = { head: string; more: boolean; id: string | null; type: string; data: unknown; trace_id: string | null; created_ms: string; event_position: string };

/**
 * The next events after `after` (null: from now on), at most `limit`, and the position to read
 * from next: the last event returned, or, when the read was not cut short, the head (so a key
 * that sees few of a busy workspace's events does not rescan the others). One round trip: the
 * database function seals the workspace's committed events, then reads (lib/domains/events/read-events.ts
 * header). `more`: read again at once (cut short, or the sealer left a backlog for the next read).
 */
export async function readEvents(
  filter: StreamFilter,
  after: StreamPosition | null,
  limit = 100,
): Promise<{ events: StreamEvent[]; next: StreamPosition; more: boolean }> {
  const from = after ?? (filter.since ? { position: "0" } : null);
  const q = await queryable();
  const { rows } = await q.execute<Row>(sql`
    select head::text, more, id, type, data, trace_id, created_ms::text, event_position::text
    from agentdraft_read_events(${filter.workspaceId}, ${from?.position ?? null}::bigint,
      array[${sql.join(filter.types.map((t) => sql`${t}`), sql`, `)}]::text[], ${filter.agentId}::text,
      ${filter.since ? filter.since.toISOString() : null}::timestamptz, ${limit}::int)`);
  const head = rows[0]!.head;
  const events = rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      position: r.event_position,
      payload: eventPayload({ id: r.id!, type: r.type, data: jsonValue(r.data), traceId: r.trace_id, createdAt: new Date(Number(r.created_ms)) }),
    }));
  const cut = events.length === limit;
  const next = cut ? { position: events[events.length - 1]!.position } : { position: head };
  // Never move backwards (a client's own position may be ahead of a head it was clamped to).
  return { events, next: from && compare(next, from) < 0 ? from : next, more: cut || rows[0]!.more };
}

/** The workspace's stream head: where a reader starting now begins (after sealing what has committed). */
export async function streamHead(workspaceId: string): Promise<StreamPosition> {
  const q = await queryable();
  const { rows } = await q.execute<{ head: string }>(sql`select agentdraft_event_head(${workspaceId}) :: text as head`);
  return { position: rows[0]!.head };
}

/**
 * A resume position checked against the workspace's head. One past it was never issued here (a
 * cursor from another workspace or deployment, a database restored from a backup, a made-up
 * one): read from, it would wait for events that may never come, silently. It is refused with a
 * 400 that says where the head is, or, with `clamp` (a browser's EventSource, which cannot act on
 * a refusal), moved to it. A legacy `<txid>.<seq>` cursor is translated to the position of the
 * last event at or before it (the database numbers the events written before positions existed
 * in that order); one past the old horizon is refused the same way.
 */
export async function resumeFrom(workspaceId: string, given: GivenPosition, field = "Last-Event-ID", o: { clamp?: boolean } = {}): Promise<StreamPosition> {
  const q = await queryable();
  const legacy = "legacy" in given ? given.legacy : null;
  const { rows } = await q.execute<{ head: string; translated: string | null }>(sql`
    select agentdraft_event_head(${workspaceId})::text as head,
      ${legacy ? sql`agentdraft_event_position_of(${workspaceId}, ${legacy.txid}::bigint, ${legacy.seq}::bigint)::text` : sql`null::text`} as translated`);
  const head = { position: rows[0]!.head };
  const after = legacy ? (rows[0]!.translated === null ? null : { position: rows[0]!.translated }) : (given as StreamPosition);
  if (after && compare(after, head) <= 0) return after;
  if (o.clamp) return head;
  const at = formatPosition(head);
  const was = legacy ? `${legacy.txid}.${legacy.seq}` : formatPosition(given as StreamPosition);
  throw new AppError(
    "validation_failed",
    `${field} ${was} is past the stream's head, ${at}: this server never sent it (a cursor from another workspace or deployment, or from before a restore?). Resume from ${at} (what is new from now on), or with ?since= to read back in time.`,
    { head: at, errors: [{ field, message: `is past the stream's head (${at})` }] },
  );
}

export function compare(a: StreamPosition, b: StreamPosition): number {
  const d = BigInt(a.position) - BigInt(b.position);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
