import { eq, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { holds, type HoldRow } from "../../db/schema";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { loadHoldForChange, assertLive } from "./load-hold";
import { resolveTtl } from "./ttl";
import { scheduleHoldExpiry } from "./expire-holds";

/** Heartbeat: a live hold lives another TTL from now. An expired one cannot be revived. */
export async function extendHold(actor: Actor, holdId: string, ttlSeconds?: number): Promise<HoldRow> {
  return transaction(async (tx) => {
    const { hold, live } = await loadHoldForChange(tx, actor, holdId, { lockCalendars: true });
    assertLive(hold, live);
    const ttl = resolveTtl(ttlSeconds, hold.ttlSeconds);
    const [extended] = await tx
      .update(holds)
      .set({ ttlSeconds: ttl, expiresAt: sql`clock_timestamp() + make_interval(secs => ${ttl})` })
      .where(eq(holds.id, holdId))
      .returning();
    await appendAudit(tx, [
      {
        actor,
        action: "hold.extended",
        resource: { type: "hold", id: holdId },
        agentId: hold.agentId,
        summary: { ttl_seconds: ttl, expires_at: extended!.expiresAt.toISOString() },
      },
    ]);
    // The old timer finds the hold alive and does nothing; the new one fires at the new expiry.
    scheduleHoldExpiry(extended!, { extended: true });
    return extended!;
  });
}
