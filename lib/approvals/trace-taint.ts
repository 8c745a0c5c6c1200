import { and, eq, sql } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { messages, type MessageRow } from "../../db/schema";

/** Why a trace is untrusted: the received message it starts at, and what is wrong with that mail. */
export type TraceTaint = { message_id: string; from: string; reasons: ("sender_unauthenticated" | "sender_authentication_failed" | "injection_signals")[] };

/**
 * Each received message starts a trace (its `trace_id`); an agent continues it with
 * `x-trace-id` in what it does about that mail. A trace is untrusted when that message's
 * sender was not authenticated (no SPF, DKIM or DMARC pass), failed authentication, or the
 * mail carries prompt-injection signals. Returns null for a trusted or unknown trace.
 */
export async function traceTaint(workspaceId: string, traceId: string | undefined | null): Promise<TraceTaint | null> {
  if (!traceId) return null;
  const q = await queryable();
  const [m] = await q
    .select(traceStartColumns)
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.traceId, traceId), eq(messages.direction, "inbound")))
    .orderBy(sql`${messages.createdAt}`, messages.id) // the id breaks ties (copies stored in one transaction share created_at), as traceStartId does
    .limit(1);
  return m ? taintOf(m) : null;
}

/** The message a trace starts at, as read for judging it. */
export type TraceStart = Pick<MessageRow, "id" | "from"> & { headers: MessageRow["headersOfNote"]; security: MessageRow["security"] };

/** What is wrong with the mail a trace starts at, or null when nothing is. */
export function taintOf(m: TraceStart): TraceTaint | null {
  const reasons: TraceTaint["reasons"] = [];
  if (m.security.auth_failed) reasons.push("sender_authentication_failed");
  else if (![m.headers.spf, m.headers.dkim, m.headers.dmarc].includes("pass")) reasons.push("sender_unauthenticated");
  if (m.security.injection_signals.length) reasons.push("injection_signals");
  return reasons.length ? { message_id: m.id, from: m.from.email, reasons } : null;
}

/** The columns taintOf reads, for a query that joins the trace's first received message. */
export const traceStartColumns = { id: messages.id, from: messages.from, headers: messages.headersOfNote, security: messages.security };

/** The first received message of a trace (the one that started it), as a subquery of its id. */
export const traceStartId = (workspaceId: string, traceId: string) =>
  sql`(select m.id from messages m where m.workspace_id = ${workspaceId} and m.trace_id = ${traceId} and m.direction = 'inbound' order by m.created_at, m.id limit 1)`;
