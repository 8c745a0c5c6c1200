import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { messageClaims, type MessageClaimRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";

type Json = Record<string, unknown>;
type Claimed =
  | { claim: Json; deliveries: OutboxDelivery[]; changed: boolean }
  | { error: { code: "not_found" | "message_claimed" | "message_completed" | "claim_not_active" | "claim_id_required"; claim?: Json | null } };

/**
 * Claims, releases or completes a received message for one worker in one statement
 * (agentdraft_claim_message), under the message's row lock: of many workers racing, exactly one
 * wins; the others get 409 message_claimed, told until when but not by whom. The worker is its
 * claim (`claimId`), not its key: workers sharing an agent's key are each other's "other worker".
 * Renewing and ending need the claim's id: without it, ending is 409 claim_id_required, naming the
 * claim (its worker, status and expiry, never its id) so the caller knows which one it must name.
 */
export async function changeClaim(
  actor: Actor & { type: "key" },
  messageId: string,
  action: "claim" | "release" | "complete",
  o: { ttlSeconds?: number; claimId?: string; worker?: string } = {},
): Promise<MessageClaimRow> {
  const q = await queryable();
  const { rows } = await q.execute<{ out: Claimed | string }>(sql`
    select agentdraft_claim_message(${JSON.stringify(actorJson(actor))}::jsonb, ${newId("messageClaim")}, ${messageId}, ${action}, ${o.ttlSeconds ?? 0}::int,
      ${o.claimId ?? null}::text, ${o.worker ?? null}::text) as out`);
  const out = jsonValue<Claimed>(rows[0]!.out);
  if ("error" in out) {
    const { code, claim } = out.error;
    if (code === "not_found") throw notFound("message", messageId);
    const until = claim ? String(claim.expires_at) : null;
    const seen = claim ? { claim: { status: claim.status, expires_at: claim.expires_at } } : {};
    if (code === "message_claimed") throw new AppError("message_claimed", `Another worker is handling ${messageId} until ${until}.`, seen);
    if (code === "message_completed") throw new AppError("message_completed", `${messageId} has been handled already.`, seen);
    if (code === "claim_id_required") {
      const named = claim ? `: its claim${claim.worker ? ` by worker "${String(claim.worker)}"` : ""} is ${String(claim.status)} (until ${until})` : ": it has no claim";
      const details = claim ? { claim: { status: claim.status, worker: claim.worker, expires_at: claim.expires_at } } : {};
      throw new AppError("claim_id_required", `Send claim_id, the id your claim answered with, to ${action} ${messageId}${named}. Workers sharing a key are told apart by it.`, details);
    }
    throw new AppError("claim_not_active", o.claimId ? `Claim ${o.claimId} on ${messageId} is no longer live (it lapsed, or was released or completed).` : `You hold no live claim on ${messageId}.`);
  }
  if (out.changed) await announceOutbox(actor.workspaceId, out.deliveries);
  return rowFromJson(messageClaims, out.claim);
}
