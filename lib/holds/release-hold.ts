import { eq, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { holds, type HoldRow } from "../../db/schema";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { cancelHoldExpiry } from "./expire-holds";
import { emitEvent } from "../events/emit-event";
import { loadHoldForChange, assertLive } from "./load-hold";
import { serializeHold } from "./serialize";

/** Gives the time back. Releasing only frees time, so it needs no calendar lock. Idempotent. */
export async function releaseHold(actor: Actor, holdId: string): Promise<HoldRow> {
  return transaction(async (tx) => {
    const { hold, live } = await loadHoldForChange(tx, actor, holdId, { lockCalendars: false });
    if (hold.status === "released") return hold;
    assertLive(hold, live);
    const [released] = await tx
      .update(holds)
      .set({ status: "released", endedAt: sql`clock_timestamp()` })
      .where(eq(holds.id, holdId))
      .returning();
    await emitEvent(tx, actor, { type: "hold.released", agentId: hold.agentId, data: { hold: serializeHold(released!) } });
    await appendAudit(tx, [{ actor, action: "hold.released", resource: { type: "hold", id: holdId }, agentId: hold.agentId }]);
    cancelHoldExpiry([holdId]);
    return released!;
  });
}
