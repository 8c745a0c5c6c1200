import { createHash } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { CompactSign, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { Transaction } from "../../db/client";
import { queryable } from "../../db/transaction";
import { signingKeys, type ApprovalRow } from "../../db/schema";
import { newId } from "../ids";
import { open, seal } from "../crypto/secret-box";
import { canonicalJson } from "../audit/canonical-json";

const ALG = "EdDSA";
export const RECEIPT_TYPE = "agentdraft-approval-receipt+jws";

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
/** The hashes a receipt commits to: the summary as given, and the evidence as canonical JSON. */
export const summaryHash = (summary: string) => sha256(summary);
export const evidenceHash = (evidence: unknown) => sha256(canonicalJson(evidence));

/** The workspace's current signing key, made on first use (Ed25519; private half sealed at rest). */
async function signingKey(tx: Transaction, workspaceId: string): Promise<{ kid: string; privateJwk: JWK }> {
  const [current] = await tx
    .select()
    .from(signingKeys)
    .where(and(eq(signingKeys.workspaceId, workspaceId), isNull(signingKeys.retiredAt)))
    .limit(1);
  if (current) return { kid: current.kid, privateJwk: JSON.parse(open(current.privateJwkSealed)) };
  const { publicKey, privateKey } = await generateKeyPair(ALG, { crv: "Ed25519", extractable: true });
  const kid = newId("signingKey");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: "sig" } as unknown as Record<string, string>;
  const privateJwk = await exportJWK(privateKey);
  await tx.insert(signingKeys).values({ kid, workspaceId, publicJwk, privateJwkSealed: seal(JSON.stringify(privateJwk)) });
  return { kid, privateJwk };
}

export type ReceiptPayload = {
  approval_id: string;
  workspace_id: string;
  status: ApprovalRow["status"];
  decided_by: string[];
  decided_at: string;
  summary_sha256: string;
  evidence_sha256: string;
};

/** A compact JWS (EdDSA) any downstream system can verify offline against /.well-known/jwks.json. */
export async function signReceipt(tx: Transaction, payload: ReceiptPayload): Promise<string> {
  const { kid, privateJwk } = await signingKey(tx, payload.workspace_id);
  const key = await importJWK(privateJwk, ALG);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: ALG, kid, typ: RECEIPT_TYPE }).sign(key);
}

/** Public keys of every workspace (or one), as a JWK Set. Kids are opaque. */
export async function publicJwks(workspaceId?: string): Promise<{ keys: Record<string, string>[] }> {
  const q = await queryable();
  const rows = await q
    .select({ publicJwk: signingKeys.publicJwk })
    .from(signingKeys)
    .where(workspaceId ? eq(signingKeys.workspaceId, workspaceId) : undefined);
  return { keys: rows.map((r) => r.publicJwk) };
}
