import { randomBytes } from "node:crypto";
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { inboxes, type InboxRow } from "../../../db/schema";
import { isUniqueViolation, sqlState } from "../../../db/errors";
import { AppError, notFound } from "../../platform/errors";
import { env } from "../../platform/config/env";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { findAgent } from "../agents";
import { page, type Pagination } from "../../platform/api/pagination";
import type { createInboxInput, updateInboxInput } from "./schemas";
import { assertNotReserved } from "./reserved-addresses";
import { domainForInbox } from "./mail-domains";

/** Gives an agent an address `username@AGENTDRAFT_MAIL_DOMAIN` (or `username@` one of the workspace's own verified domains); addresses are unique. */
export async function createInbox(actor: Actor, input: z.output<typeof createInboxInput>): Promise<InboxRow> {
  const boundAgent = actor.type === "key" ? actor.agentId : null;
  if (boundAgent && input.agent_id && input.agent_id !== boundAgent) throw notFound("agent", input.agent_id);
  const agentId = boundAgent ?? input.agent_id;
  if (!agentId) {
    throw new AppError("validation_failed", "agent_id is required with a workspace-wide key.", { errors: [{ field: "agent_id", message: "required" }] });
  }
  const username = input.username ?? `agent-${randomBytes(5).toString("hex")}`;
  assertNotReserved(username);
  // On one of the workspace's own domains (verified, or capture_only without Resend), or the deployment's.
  const domain = input.domain ? await domainForInbox(actor.workspaceId, input.domain) : null;
  const address = `${username}@${domain?.name ?? env().AGENTDRAFT_MAIL_DOMAIN}`;
  try {
    return await transaction(async (tx) => {
      await findAgent(actor.workspaceId, agentId);
      const [row] = await tx
        .insert(inboxes)
        .values({
          id: newId("inbox"),
          workspaceId: actor.workspaceId,
          agentId,
          address,
          domainId: domain?.id ?? null,
          displayName: input.display_name ?? null,
          allowSenders: input.allow_senders,
          blockSenders: input.block_senders,
        })
        .returning();
      await appendAudit(tx, [{ actor, action: "inbox.created", resource: { type: "inbox", id: row!.id }, agentId, summary: { address } }]);
      return row!;
    });
  } catch (err) {
    // The domain was deleted while this inbox was being created on it.
    if (domain && sqlState(err) === "23503") throw new AppError("not_found", `The domain ${domain.name} was just deleted.`);
    if (isUniqueViolation(err)) {
      throw new AppError("conflict", `The address ${address} is taken.`, { errors: [{ field: "username", message: "address taken" }] });
    }
    throw err;
  }
}

/** An inbox of the workspace; an agent-bound key sees only its agent's inboxes (others are 404). */
export async function getInbox(actor: Actor, id: string): Promise<InboxRow> {
  const q = await queryable();
  const [row] = await q.select().from(inboxes).where(and(eq(inboxes.id, id), eq(inboxes.workspaceId, actor.workspaceId)));
  if (!row || (actor.type === "key" && actor.agentId && row.agentId !== actor.agentId)) throw notFound("inbox", id);
  return row;
}

export async function listInboxes(actor: Actor, p: Pagination) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(inboxes.workspaceId, actor.workspaceId)];
  if (actor.type === "key" && actor.agentId) where.push(eq(inboxes.agentId, actor.agentId));
  if (p.starting_after) where.push(lt(inboxes.id, p.starting_after));
  const rows = await q.select().from(inboxes).where(and(...where)).orderBy(desc(inboxes.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}

export async function updateInbox(actor: Actor, id: string, input: z.output<typeof updateInboxInput>): Promise<InboxRow> {
  return transaction(async (tx) => {
    await getInbox(actor, id);
    const [row] = await tx
      .update(inboxes)
      .set({
        ...(input.display_name !== undefined ? { displayName: input.display_name } : {}),
        ...(input.allow_senders ? { allowSenders: input.allow_senders } : {}),
        ...(input.block_senders ? { blockSenders: input.block_senders } : {}),
      })
      .where(eq(inboxes.id, id))
      .returning();
    await appendAudit(tx, [{ actor, action: "inbox.updated", resource: { type: "inbox", id }, agentId: row!.agentId, summary: { fields: Object.keys(input) } }]);
    return row!;
  });
}
