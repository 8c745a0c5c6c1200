import { createHash } from "node:crypto";
import { CompactSign, compactVerify, createLocalJWKSet, importJWK, type JWK } from "jose";
import type { Transaction } from "../../../db/client";
import type { ApprovalRow } from "../../../db/schema";
import { ALG, publicJwks, signingKey } from "../../platform/audit/signing-keys";
import { canonicalJson } from "../../platform/crypto/canonical-json";

export { publicJwks, signingKey };
export const RECEIPT_TYPE = "agentdraft-approval-receipt+jws";

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
/** The hashes a receipt commits to: the summary as given, and the evidence as canonical JSON. */
export const summaryHash = (summary: string) => sha256(summary);
export const evidenceHash = (evidence: unknown) => sha256(canonicalJson(evidence));
export const actionHash = (action: Record<string, unknown>) => sha256(canonicalJson(action));

/**
 * What a receipt binds: whose approval, what was asked (summary, evidence, the exact action, its
 * class, amount and currency, the asking agent, the quorum), the outcome, and until when it holds.
 * A verifier checks `workspace_id` against the workspace whose keys it fetched.
 */
export type ReceiptPayload = {
  approval_id: string;
  workspace_id: string;
  agent_id: string | null;
  status: ApprovalRow["status"];
  decided_by: string[];
  decided_at: string;
  required_approvals: number;
  action_class: string | null;
  amount: number | null;
  currency: string | null;
  action_sha256: string | null;
  summary_sha256: string;
  evidence_sha256: string;
  expires_at: string;
};

/** A compact JWS (EdDSA) any downstream system can verify offline against /.well-known/jwks.json. */
export async function signReceipt(tx: Transaction, payload: ReceiptPayload): Promise<string> {
  const { kid, privateJwk } = await signingKey(tx, payload.workspace_id);
  const key = await importJWK(privateJwk, ALG);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: ALG, kid, typ: RECEIPT_TYPE }).sign(key);
}

/**
 * Verifies a receipt as a downstream system should: against the keys of the workspace it
 * trusts, then that the payload names that workspace. Returns the payload, or throws.
 */
export async function verifyReceipt(receipt: string, jwks: { keys: JWK[] }, workspaceId: string): Promise<ReceiptPayload> {
  const { payload, protectedHeader } = await compactVerify(receipt, createLocalJWKSet(jwks));
  if (protectedHeader.typ !== RECEIPT_TYPE) throw new Error("not an approval receipt");
  const body = JSON.parse(new TextDecoder().decode(payload)) as ReceiptPayload;
  if (body.workspace_id !== workspaceId) throw new Error("receipt of another workspace");
  return body;
}
