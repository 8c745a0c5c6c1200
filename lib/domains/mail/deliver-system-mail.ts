import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { outboundMail, type OutboundMailRow } from "../../../db/schema";
import { configuredTransport, type MailTransport } from "./send-mail";
import { afterFailure, DELIVERY_LEASE_MS } from "./delivery-policy";

/**
 * Hands queued system mail (queueMail) to the provider: batches claimed with SKIP LOCKED and a
 * lease, the provider called outside any transaction with the row id as idempotency key, then
 * `sent`, a retry on the schedule, or `failed`. (Tests and the CLI; in the server each mail is
 * its own run, `deliverSystemMailItem`.)
 */
export async function deliverSystemMail(transport: MailTransport | null = configuredTransport(), batch = 20) {
  const result = { sent: 0, retried: 0, failed: 0 };
  if (!transport) return result;
  const claimed = await transaction(async (tx) => {
    const due = await tx
      .select({ id: outboundMail.id })
      .from(outboundMail)
      .where(and(eq(outboundMail.status, "queued"), lte(outboundMail.nextAttemptAt, sql`now()`)))
      .orderBy(asc(outboundMail.nextAttemptAt))
      .limit(batch)
      .for("update", { skipLocked: true });
    if (!due.length) return [];
    return tx.update(outboundMail).set(leaseSet).where(inArray(outboundMail.id, due.map((d) => d.id))).returning();
  });
  for (const mail of claimed) result[(await deliverOne(mail, transport)).result]++;
  return result;
}

/** One unit of work: claims one queued system mail (if it is due and not leased) and delivers it. */
export async function deliverSystemMailItem(id: string, transport: MailTransport | null = configuredTransport()): Promise<{ retryAt: Date | null } | null> {
  if (!transport) return null;
  const q = await queryable();
  const [mail] = await q
    .update(outboundMail)
    .set(leaseSet)
    .where(and(eq(outboundMail.id, id), eq(outboundMail.status, "queued"), lte(outboundMail.nextAttemptAt, sql`now()`)))
    .returning();
  if (!mail) return null;
  return deliverOne(mail, transport);
}

/** Queued system mail, for the work registry. */
export const queuedSystemMailSource = () =>
  sql`select id, workspace_id, null::text as key, next_attempt_at as due_at from outbound_mail where status = 'queued'`;

const leaseSet = { attempts: sql`${outboundMail.attempts} + 1`, nextAttemptAt: sql`now() + make_interval(secs => ${DELIVERY_LEASE_MS / 1000})` };

async function deliverOne(m: OutboundMailRow, transport: MailTransport): Promise<{ result: "sent" | "retried" | "failed"; retryAt: Date | null }> {
  const stillQueued = and(eq(outboundMail.id, m.id), eq(outboundMail.status, "queued"));
  try {
    const { providerId } = await transport({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html ?? undefined, idempotencyKey: m.id });
    await transaction((tx) => tx.update(outboundMail).set({ status: "sent", providerId, nextAttemptAt: null, lastError: null }).where(stillQueued));
    return { result: "sent", retryAt: null };
  } catch (err) {
    const { error, waitMs } = afterFailure(err, m.attempts);
    const retryAt = waitMs === null ? null : new Date(Date.now() + waitMs);
    await transaction((tx) =>
      tx
        .update(outboundMail)
        .set(waitMs === null ? { status: "failed", lastError: error, nextAttemptAt: null } : { lastError: error, nextAttemptAt: retryAt })
        .where(stillQueued),
    );
    if (waitMs === null) console.error(`[mail] gave up on ${m.kind} mail ${m.id} to ${m.to.join(", ")}: ${error}`);
    return { result: waitMs === null ? "failed" : "retried", retryAt };
  }
}
