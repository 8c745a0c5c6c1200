import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { outboundMail, type OutboundMailRow } from "../../db/schema";
import { configuredTransport, type MailTransport } from "./send-mail";
import { afterFailure, DELIVERY_LEASE_MS } from "./delivery-policy";

/**
 * Hands queued system mail (queueMail) to the provider: batches claimed with SKIP LOCKED and a
 * lease, the provider called outside any transaction with the row id as idempotency key, then
 * `sent`, a retry on the schedule, or `failed`.
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
    return tx
      .update(outboundMail)
      .set({ attempts: sql`${outboundMail.attempts} + 1`, nextAttemptAt: sql`now() + make_interval(secs => ${DELIVERY_LEASE_MS / 1000})` })
      .where(inArray(outboundMail.id, due.map((d) => d.id)))
      .returning();
  });
  for (const mail of claimed) result[await deliverOne(mail, transport)]++;
  return result;
}

async function deliverOne(m: OutboundMailRow, transport: MailTransport): Promise<"sent" | "retried" | "failed"> {
  const stillQueued = and(eq(outboundMail.id, m.id), eq(outboundMail.status, "queued"));
  try {
    const { providerId } = await transport({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html ?? undefined, idempotencyKey: m.id });
    await transaction((tx) => tx.update(outboundMail).set({ status: "sent", providerId, nextAttemptAt: null, lastError: null }).where(stillQueued));
    return "sent";
  } catch (err) {
    const { error, waitMs } = afterFailure(err, m.attempts);
    await transaction((tx) =>
      tx
        .update(outboundMail)
        .set(waitMs === null ? { status: "failed", lastError: error, nextAttemptAt: null } : { lastError: error, nextAttemptAt: new Date(Date.now() + waitMs) })
        .where(stillQueued),
    );
    if (waitMs === null) console.error(`[mail] gave up on ${m.kind} mail ${m.id} to ${m.to.join(", ")}: ${error}`);
    return waitMs === null ? "failed" : "retried";
  }
}
