import { transaction } from "../../../db/transaction";
import { apiKeys, type ApiKeyRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { findAgent } from "../agents";
import { appendAudit } from "../../platform/audit/append-audit";
import { generateKey } from "../../platform/api/key-material";
import { createKeyInput, type CreateKeyInput } from "./schemas";

/** Creates a key and returns it in the clear this once; only its hash is stored. */
export async function createKey(actor: Actor, input: CreateKeyInput): Promise<{ row: ApiKeyRow; key: string }> {
  const parsed = createKeyInput.parse(input);
  const { key, prefix, hash } = generateKey(parsed.mode);
  const scopes = parsed.scopes ? [...new Set(parsed.scopes)].sort() : null;
  const row = await transaction(async (tx) => {
    const agent = parsed.agent_id ? await findAgent(actor.workspaceId, parsed.agent_id) : null;
    const [inserted] = await tx
      .insert(apiKeys)
      .values({
        id: newId("apiKey"),
        workspaceId: actor.workspaceId,
        agentId: agent?.id ?? null,
        name: parsed.name ?? null,
        mode: parsed.mode,
        prefix,
        hash,
        scopes,
      })
      .returning();
    await appendAudit(tx, [
      {
        actor,
        action: "api_key.created",
        resource: { type: "api_key", id: inserted!.id },
        agentId: inserted!.agentId,
        summary: { prefix, mode: parsed.mode, scopes, name: parsed.name ?? null },
      },
    ]);
    return inserted!;
  });
  return { row, key };
}
