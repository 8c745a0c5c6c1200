import { and, eq, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { messages } from "../../../db/schema";
import { taintOf, type MailTaint } from "../taint";

/** The columns taintOf reads. */
const traceStartColumns = { id: messages.id, from: messages.from, headers: messages.headersOfNote, security: messages.security };

/** Why a trace is untrusted: the received message it starts at, and what is wrong with that mail. */
export type TraceTaint = MailTaint;

/**
 * Each received message starts a trace (its `trace_id`); an agent continues it with
 * `x-trace-id` in what it does about that mail. Traces are for graphs: an action is judged by what
 * its agent read (lib/domains/approvals/actor-taint.ts), and a trace can only add taint. A trace is
 * untrusted when the message it starts at is (lib/domains/taint/untrusted-mail.ts). Returns null for a
 * trusted or unknown trace.
 */
export async function traceTaint(workspaceId: string, traceId: string | undefined | null): Promise<TraceTaint | null> {
  if (!traceId) return null;
  const q = await queryable();
  const [m] = await q
    .select(traceStartColumns)
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.traceId, traceId), eq(messages.direction, "inbound")))
    .orderBy(sql`${messages.createdAt}`, messages.id) // the id breaks ties (copies stored in one transaction share created_at)
    .limit(1);
  return m ? taintOf(m) : null;
}
