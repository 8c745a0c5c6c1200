import { createHash } from "node:crypto";
import type { AuditEntryRow } from "../../../db/schema";
import { canonicalJson } from "../crypto/canonical-json";

/** The prev_hash of a workspace's first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** The fields an entry's hash covers: everything but the hashes, as the API shows them. */
export function hashedFields(e: Omit<AuditEntryRow, "prevHash" | "hash" | "position" | "txid">) {
  return {
    id: e.id,
    workspace_id: e.workspaceId,
    seq: e.seq,
    at: e.at.toISOString(),
    actor: { type: e.actorType, id: e.actorId },
    agent_id: e.agentId,
    action: e.action,
    resource: { type: e.resourceType, id: e.resourceId },
    trace_id: e.traceId,
    request_id: e.requestId,
    summary: e.summary,
    outcome: e.outcome,
  };
}

/** hash = sha256(prev_hash || canonical JSON of the entry), hex (SPEC §8). */
export function entryHash(prevHash: string, e: Omit<AuditEntryRow, "prevHash" | "hash" | "position" | "txid">): string {
  return createHash("sha256").update(prevHash).update(canonicalJson(hashedFields(e))).digest("hex");
}
