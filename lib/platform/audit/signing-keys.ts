import { and, eq, isNull } from "drizzle-orm";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import type { Transaction } from "../../../db/client";
import { queryable } from "../../../db/transaction";
import { signingKeys } from "../../../db/schema";
import { newId } from "../ids";
import { open, seal } from "../crypto/secret-box";

/** Ed25519 signatures: approval receipts and audit checkpoints. */
export const ALG = "EdDSA";

/** The workspace's current signing key, made on first use (Ed25519; private half sealed at rest). Also signs audit checkpoints. */
export async function signingKey(tx: Transaction, workspaceId: string): Promise<{ kid: string; privateJwk: JWK }> {
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

/**
 * One workspace's public keys, as a JWK Set (an unknown workspace has none). Never every
 * workspace's at once: a verifier trusting such a set would accept another tenant's receipt.
 */
export async function publicJwks(workspaceId: string): Promise<{ keys: Record<string, string>[] }> {
  const q = await queryable();
  const rows = await q.select({ publicJwk: signingKeys.publicJwk }).from(signingKeys).where(eq(signingKeys.workspaceId, workspaceId));
  return { keys: rows.map((r) => r.publicJwk) };
}
