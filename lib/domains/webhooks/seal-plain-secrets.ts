import { and, eq, like, or, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { webhookEndpoints } from "../../../db/schema";
import { SECRET_PREFIX, sealSecret } from "./secret";

const BATCH = 200;

/**
 * Seals every endpoint secret still stored as `whsec_...` (rows written before migration 0047,
 * or by an instance of the previous release during a deploy). Idempotent and safe beside live
 * traffic: batches of 200, each row updated only if its secrets are still the ones read
 * (a rotation in between wins, and the next pass looks again). Returns how many rows it sealed.
 */
export async function sealPlainSecrets(): Promise<number> {
  const db = await getDb();
  const plain = or(like(webhookEndpoints.secret, `${SECRET_PREFIX}%`), like(webhookEndpoints.previousSecret, `${SECRET_PREFIX}%`));
  let sealed = 0;
  for (;;) {
    const rows = await db
      .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret, previousSecret: webhookEndpoints.previousSecret })
      .from(webhookEndpoints)
      .where(plain)
      .limit(BATCH);
    let changed = 0;
    for (const r of rows) {
      const next = {
        secret: r.secret.startsWith(SECRET_PREFIX) ? sealSecret(r.secret) : r.secret,
        previousSecret: r.previousSecret?.startsWith(SECRET_PREFIX) ? sealSecret(r.previousSecret) : r.previousSecret,
      };
      const done = await db
        .update(webhookEndpoints)
        .set(next)
        .where(and(eq(webhookEndpoints.id, r.id), eq(webhookEndpoints.secret, r.secret), sql`${webhookEndpoints.previousSecret} is not distinct from ${r.previousSecret}`))
        .returning({ id: webhookEndpoints.id });
      changed += done.length;
    }
    sealed += changed;
    // A short batch was the last; a batch whose every row moved under us (rotations) is looked at again next time.
    if (rows.length < BATCH || changed === 0) return sealed;
  }
}
