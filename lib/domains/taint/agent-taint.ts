import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { jsonValue } from "../../../db/row-json";
import { queryable, transaction } from "../../../db/transaction";
import { messages, type MessageRow, type TaintChannel } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { taintOfMessage, type MailTaint } from "./untrusted-mail";

type KeyActor = Actor & { type: "key" };

/** Whose reads taint: an agent-bound key's agent (all its keys share it), else the workspace-wide key itself. */
export const readerOf = (actor: KeyActor): string => actor.agentId ?? actor.keyId;

/** The readers an actor's taint is looked up by: its agent and the key itself (a key read before it was bound, or a workspace-wide one). */
const readersOf = (actor: KeyActor): string[] => (actor.agentId ? [actor.agentId, actor.keyId] : [actor.keyId]);

/** A message as far as taint needs it. */
export type ReadMessage = Pick<MessageRow, "id" | "from" | "direction" | "headersOfNote" | "security">;

/** The columns of a ReadMessage, for a query that reads messages only to record their reading. */
export const readMessageColumns = { id: messages.id, from: messages.from, direction: messages.direction, headersOfNote: messages.headersOfNote, security: messages.security };

/**
 * Records that a key read these messages' bodies (SPEC §13): for each untrusted one its reader is
 * tainted for the workspace's taint window from now (a read again after a person cleared it, or
 * after the window, taints again). Reads that start a taint are audited (`agent.tainted`).
 * Costs nothing when none of the messages is untrusted; else one statement (and the audit entry),
 * which writes nothing when the same taint was recorded less than a minute ago.
 */
export async function recordReads(actor: Actor, read: ReadMessage[]): Promise<void> {
  if (actor.type !== "key") return;
  await recordReadsBy(actor, readerOf(actor), read, actor.via ?? "api");
}

/**
 * recordReads for messages shown by id (a subject in a trace's timeline is read as much as a body
 * is): reads what taint judges of them, one query, only for a key.
 */
export async function recordReadsOf(actor: Actor, workspaceId: string, messageIds: string[]): Promise<void> {
  if (actor.type !== "key" || !messageIds.length) return;
  const q = await queryable();
  const rows = await q
    .select(readMessageColumns)
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), inArray(messages.id, messageIds)));
  await recordReads(actor, rows);
}

/** recordReads for a reader the server delivers to (the agent of a webhook's event, the reader of the event stream). */
export async function recordReadsBy(actor: Actor, reader: string, read: ReadMessage[], channel: TaintChannel): Promise<void> {
  await recordTaints(actor, reader, read.map(taintOfMessage).filter((t): t is MailTaint => t !== null), channel);
}

/**
 * Taint is not laundered through another agent: a handoff from a tainted agent taints its
 * recipient with the same untrusted mail, as if it had read it. One indexed read; a write only
 * when the sender is tainted.
 */
export async function passTaint(actor: Actor, toAgentId: string): Promise<void> {
  if (actor.type !== "key" || toAgentId === readerOf(actor)) return;
  const taint = await agentTaint(actor);
  if (taint) await recordTaints(actor, toAgentId, [{ message_id: taint.message_id, from: taint.from, reasons: taint.reasons }], "handoff");
}

async function recordTaints(actor: Actor, reader: string, untrusted: MailTaint[], channel: TaintChannel): Promise<void> {
  if (!untrusted.length) return;
  await transaction(async (tx) => {
    const rows = untrusted.map(
      (t) => sql`(${actor.workspaceId}, ${reader}, ${t.message_id}, ${t.from}, ${`{${t.reasons.join(",")}}`}::text[], ${channel})`,
    );
    const { rows: started } = await tx.execute<{ message_id: string }>(sql`
      -- One reading of the clock for the whole statement: a taint's read time and its end are exactly the
      -- window apart, and what counts as live before the upsert and within it is judged at that same instant.
      with w as (select clock_timestamp() as at, taint_window_seconds from workspaces where id = ${actor.workspaceId}),
      live as (
        select message_id from agent_taints
        where workspace_id = ${actor.workspaceId} and reader = ${reader} and cleared_at is null and expires_at > (select at from w)
      ),
      up as (
        insert into agent_taints as t (workspace_id, reader, message_id, from_email, reasons, channel, last_read_at, expires_at)
        select v.*, w.at, w.at + make_interval(secs => w.taint_window_seconds)
        from (values ${sql.join(rows, sql`, `)}) v(workspace_id, reader, message_id, from_email, reasons, channel), w
        on conflict (workspace_id, reader, message_id) do update
          set last_read_at = excluded.last_read_at, expires_at = excluded.expires_at, channel = excluded.channel,
              reasons = excluded.reasons, cleared_at = null, cleared_by = null
          -- A live taint read again within the minute keeps its row as it is: reading a busy inbox writes at most once a minute.
          where t.cleared_at is not null or t.expires_at <= excluded.last_read_at or t.last_read_at < excluded.last_read_at - interval '1 minute'
        returning t.message_id
      )
      select message_id from up where message_id not in (select message_id from live)`);
    if (!started.length) return;
    await appendAudit(
      tx,
      started.map((s) => ({
        actor,
        action: "agent.tainted",
        resource: { type: reader.startsWith("key_") ? "api_key" : "agent", id: reader },
        agentId: reader.startsWith("key_") ? null : reader,
        summary: { message_id: s.message_id, channel, ...untrusted.find((t) => t.message_id === s.message_id) },
      })),
    );
  });
}

/** Why an action is tainted: what the agent read, the trace it names, or the message it replies to. */
export type Taint = MailTaint & { source: "agent_read" | "trace" | "reply_parent"; read_at?: string; tainted_until?: string };

/** The agent's live taint (the untrusted message it read last), or null. One indexed read. */
export async function agentTaint(actor: KeyActor): Promise<Taint | null> {
  const q = await queryable();
  const { rows } = await q.execute<{ taint: unknown }>(sql`select ${agentTaintJson(actor)} as taint`);
  const taint = rows[0]?.taint ? jsonValue<AgentTaint>(rows[0].taint) : null;
  return taint ? { source: "agent_read", ...taint } : null;
}

/** A live taint as agentTaintJson answers it. */
export type AgentTaint = Pick<MailTaint, "message_id" | "from" | "reasons"> & { read_at: string; tainted_until: string };

/**
 * The agent's live taint as a jsonb expression (null when none), for a statement that reads it
 * beside other things (GET /v1/me answers in one statement).
 */
export function agentTaintJson(actor: KeyActor): SQL {
  return sql`(select jsonb_build_object('message_id', t.message_id, 'from', t.from_email, 'reasons', to_jsonb(t.reasons),
      'read_at', agentdraft_iso(t.last_read_at), 'tainted_until', agentdraft_iso(t.expires_at))
    from agent_taints t
    where t.workspace_id = ${actor.workspaceId} and t.reader = any(${sql.param(readersOf(actor))}::text[])
      and t.cleared_at is null and t.expires_at > clock_timestamp()
    order by t.last_read_at desc limit 1)`;
}

/** The received messages whose bodies events carry (`email.received`: the message as the API serializes it). */
export function messagesInEvents(events: { type: string; data: unknown }[]): ReadMessage[] {
  const out: ReadMessage[] = [];
  for (const e of events) {
    const m = (e.data as { message?: Record<string, unknown> } | null)?.message;
    if (e.type !== "email.received" || !m || typeof m.id !== "string") continue;
    out.push({
      id: m.id,
      direction: m.direction as ReadMessage["direction"],
      from: m.from as ReadMessage["from"],
      headersOfNote: (m.headers_of_note ?? {}) as ReadMessage["headersOfNote"],
      security: (m.security ?? { auth_failed: false, injection_signals: [] }) as ReadMessage["security"],
    });
  }
  return out;
}
