import { sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { handoffs, type HandoffRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import type { CreateHandoffInput } from "./schemas";
import { scheduleHandoffTimers } from "./handoff-clock";
import { passTaint } from "../taint";
import { bindTrace } from "../../platform/traces/trace-access";

type Created = { handoff: Record<string, unknown>; deliveries: OutboxDelivery[] } | { error: { code: "from_agent_not_found" | "to_agent_not_found" | "parent_not_found" } };

const field = (name: string, message: string) => new AppError("validation_failed", message, { errors: [{ field: name, message }] });

/** Who sends: an agent-bound key as its agent (naming another is not found); a workspace-wide key names the agent. */
function sender(actor: Actor, named: string | undefined): string {
  const keyAgent = actor.type === "key" ? actor.agentId : null;
  if (keyAgent) {
    if (named && named !== keyAgent) throw new AppError("not_found", `No agent with id ${named}.`);
    return keyAgent;
  }
  if (!named) throw field("from_agent_id", "a workspace-wide key must name the sending agent (from_agent_id)");
  return named;
}

/**
 * Hands work to another agent (SPEC §16): the envelope, its body apart, handoff.received for the
 * recipient and the audit entry, in one statement (agentdraft_create_handoff). An Idempotency-Key
 * on the request makes a retry return this same handoff (lib/platform/api/idempotency.ts).
 */
export async function createHandoff(actor: Actor, input: CreateHandoffInput): Promise<HandoffRow> {
  const from = sender(actor, input.from_agent_id);
  const id = newId("handoff");
  // One transaction: a refused handoff leaves no trace claimed.
  const out = await transaction(async (tx) => {
    // The trace and the correlation id it joins must be the sender's to use: its own, new, or one whose graph it is in.
    for (const traceId of new Set([actor.traceId, input.correlation_id])) if (traceId) await bindTrace(actor, traceId, from);
    const { rows } = await tx.execute<{ out: Created | string }>(sql`
      select agentdraft_create_handoff(${JSON.stringify(actorJson(actor))}::jsonb, ${id}, ${from}, ${input.to_agent_id}, ${input.type},
        ${JSON.stringify(input.body)}::jsonb, ${input.parent_id ?? null}, ${input.correlation_id ?? null},
        ${input.expires_in_seconds ?? null}::int, ${input.max_attempts}::int) as out`);
    const created = jsonValue<Created>(rows[0]!.out);
    if ("error" in created) {
      if (created.error.code === "from_agent_not_found") throw field("from_agent_id", `no agent with id ${from} in this workspace`);
      if (created.error.code === "to_agent_not_found") throw field("to_agent_id", `no agent with id ${input.to_agent_id} in this workspace`);
      throw field("parent_id", `no handoff with id ${input.parent_id} that this key can see`);
    }
    return created;
  });
  const handoff = rowFromJson(handoffs, out.handoff);
  await passTaint(actor, handoff.toAgentId);
  await Promise.all([announceOutbox(actor.workspaceId, out.deliveries), scheduleHandoffTimers(handoff)]);
  return handoff;
}
