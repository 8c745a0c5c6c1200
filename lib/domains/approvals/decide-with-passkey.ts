import { and, eq, isNotNull, lt, or, sql } from "drizzle-orm";
import { generateAuthenticationOptions, verifyAuthenticationResponse, type VerifyAuthenticationResponseOpts } from "@simplewebauthn/server";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { approvalDecisions, approvals, authenticators, decisionChallenges, members, type ApprovalRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { publicOrigin } from "../../platform/config/public-url";
import { DECIDING_ROLES, decideApproval } from "./decide-approval";

/** How long a decision's passkey challenge can be answered: a fresh act, not a standing permission. */
export const DECISION_CHALLENGE_TTL_MS = 2 * 60_000;

export type Verdict = "approve" | "deny";
type MemberActor = Actor & { type: "member" };
type AuthenticationResponseJSON = VerifyAuthenticationResponseOpts["response"];
export type DecisionOptions = Awaited<ReturnType<typeof generateAuthenticationOptions>>;

/** The relying party the web app's passkeys were registered for (Auth.js uses the same origin: AUTH_URL). */
export function relyingParty(): { origin: string; id: string } {
  const origin = publicOrigin();
  return { origin, id: new URL(origin).hostname };
}

const refused = (detail: string) => new AppError("forbidden", detail);

/**
 * Step one of a decision: a WebAuthn challenge bound to this member, this approval and this
 * verdict, stored server-side for DECISION_CHALLENGE_TTL_MS, and the options for the browser's
 * passkey prompt (the member's own passkeys, user verification required).
 */
export async function startDecision(actor: MemberActor, approvalId: string, decision: Verdict): Promise<DecisionOptions> {
  return transaction(async (tx) => {
    const [member] = await tx.select().from(members).where(and(eq(members.id, actor.memberId), eq(members.workspaceId, actor.workspaceId)));
    if (!member || !(DECIDING_ROLES as readonly string[]).includes(member.role)) {
      throw refused("Only members with the approver, admin or owner role can decide approvals.");
    }
    const [approval] = await tx.select({ status: approvals.status }).from(approvals).where(and(eq(approvals.id, approvalId), eq(approvals.workspaceId, actor.workspaceId)));
    if (!approval) throw notFound("approval", approvalId);
    if (approval.status !== "pending") throw new AppError("conflict", `This approval is already ${approval.status}.`, { approval_status: approval.status });
    return issueChallenge(tx, actor, member.userId, approvalId, decision, "Deciding an approval");
  });
}

/**
 * A WebAuthn challenge for this member bound to `target` (an approval's id, or what else a
 * passkey confirms: a built-in rule's change) and `decision`, stored for DECISION_CHALLENGE_TTL_MS,
 * with the options for the browser's prompt (the member's own passkeys, user verification required).
 */
export async function issueChallenge(tx: Transaction, actor: MemberActor, userId: string | null, target: string, decision: Verdict, doing: string): Promise<DecisionOptions> {
  const rp = relyingParty();
  const passkeys = userId ? await tx.select().from(authenticators).where(eq(authenticators.userId, userId)) : [];
  if (passkeys.length === 0) throw refused(`${doing} needs one of your passkeys, and this account has none.`);
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: "required",
    timeout: DECISION_CHALLENGE_TTL_MS,
    allowCredentials: passkeys.map((p) => ({
      id: new Uint8Array(Buffer.from(p.credentialID, "base64")),
      type: "public-key" as const,
      transports: p.transports ? (p.transports.split(",") as never) : undefined,
    })),
  });
  // Challenges this member left unanswered are dropped once stale; a new one for the same decision replaces the old.
  await tx
    .delete(decisionChallenges)
    .where(
      and(
        eq(decisionChallenges.memberId, actor.memberId),
        or(lt(decisionChallenges.expiresAt, sql`now()`), and(eq(decisionChallenges.approvalId, target), eq(decisionChallenges.decision, decision))),
      ),
    );
  await tx.insert(decisionChallenges).values({
    challenge: options.challenge,
    workspaceId: actor.workspaceId,
    memberId: actor.memberId,
    approvalId: target,
    decision,
    expiresAt: sql`now() + make_interval(secs => ${DECISION_CHALLENGE_TTL_MS / 1000})` as unknown as Date,
  });
  return options;
}

/** The shape of a WebAuthn assertion as the browser sends it (@simplewebauthn/browser's startAuthentication). */
const assertionSchema = z.object({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: z.string().min(1).max(8192),
    authenticatorData: z.string().min(1).max(8192),
    signature: z.string().min(1).max(1024),
    userHandle: z.string().max(1024).optional().nullable(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(64).optional().nullable(),
});

const NEEDS_PASSKEY = "This needs a fresh confirmation with one of your passkeys (with your fingerprint, face or PIN): confirm again.";

/** The assertion, or a clear refusal. Accepts the JSON text a form carries. */
export function parseAssertion(raw: unknown): AuthenticationResponseJSON {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw refused(NEEDS_PASSKEY);
    }
  }
  const parsed = assertionSchema.safeParse(value);
  if (!parsed.success) throw refused(NEEDS_PASSKEY);
  return { ...parsed.data, response: { ...parsed.data.response, userHandle: parsed.data.response.userHandle ?? undefined }, authenticatorAttachment: (parsed.data.authenticatorAttachment ?? undefined) as never, clientExtensionResults: parsed.data.clientExtensionResults as never };
}

function challengeOf(assertion: AuthenticationResponseJSON): string {
  try {
    const client = JSON.parse(Buffer.from(assertion.response.clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    if (typeof client.challenge === "string" && client.challenge.length > 0 && client.challenge.length <= 200) return client.challenge;
  } catch {
    // falls through to the refusal
  }
  throw refused(NEEDS_PASSKEY);
}

/**
 * A decision made in the web app: records the member's vote only with a fresh, user-verified
 * passkey assertion over a challenge from `startDecision` for this very approval and verdict,
 * signed by one of this member's own passkeys. The challenge is spent first (whatever happens
 * next, it never decides twice); any failure records nothing. The vote and its audit entry
 * name the passkey.
 */
export async function decideWithPasskey(actor: MemberActor, approvalId: string, decision: Verdict, note: string | null | undefined, rawAssertion: unknown): Promise<ApprovalRow> {
  const credentialId = await spendConfirmation(actor, approvalId, decision, rawAssertion);
  return decideApproval(actor, approvalId, decision, note, { passkeyCredentialId: credentialId });
}

/**
 * Checks a passkey confirmation: a fresh, user-verified assertion over a challenge issued
 * (issueChallenge) to this member for exactly `target` and `decision`, signed by one of this
 * member's own passkeys. The challenge is spent first (whatever happens next, it never confirms
 * twice). Answers the passkey's credential id; any failure is a clear 403.
 */
export async function spendConfirmation(actor: MemberActor, target: string, decision: Verdict, rawAssertion: unknown): Promise<string> {
  if (rawAssertion === undefined || rawAssertion === null || rawAssertion === "") throw refused(NEEDS_PASSKEY);
  const assertion = parseAssertion(rawAssertion);
  const challenge = challengeOf(assertion);
  // Spent in its own transaction: a replay finds nothing, even if this decision fails below.
  const spent = await transaction(async (tx) => {
    const [row] = await tx
      .delete(decisionChallenges)
      .where(eq(decisionChallenges.challenge, challenge))
      .returning({
        challenge: decisionChallenges.challenge,
        workspaceId: decisionChallenges.workspaceId,
        memberId: decisionChallenges.memberId,
        approvalId: decisionChallenges.approvalId,
        decision: decisionChallenges.decision,
        expired: sql<boolean>`${decisionChallenges.expiresAt} <= clock_timestamp()`,
      });
    return row;
  });
  if (!spent) throw refused("This passkey confirmation was already used or was never issued: confirm again.");
  const { expired, ...bound } = spent;
  if (bound.workspaceId !== actor.workspaceId || bound.memberId !== actor.memberId) throw refused("This passkey confirmation was made by someone else: confirm again with your own passkey.");
  if (bound.approvalId !== target || bound.decision !== decision) {
    throw refused(`This passkey confirmation was made for another decision (${bound.decision} on ${bound.approvalId}): confirm this one again.`);
  }
  if (expired) throw refused("This passkey confirmation has expired (it lasts 2 minutes): confirm again.");

  const q = await queryable();
  const [member] = await q.select({ userId: members.userId }).from(members).where(and(eq(members.id, actor.memberId), eq(members.workspaceId, actor.workspaceId)));
  const credentialId = Buffer.from(assertion.rawId, "base64url").toString("base64");
  const [passkey] = member?.userId
    ? await q.select().from(authenticators).where(and(eq(authenticators.userId, member.userId), eq(authenticators.credentialID, credentialId)))
    : [];
  if (!passkey) throw refused("This is not one of your passkeys: confirm with a passkey registered to your account.");

  const rp = relyingParty();
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: bound.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      authenticator: {
        credentialID: new Uint8Array(Buffer.from(passkey.credentialID, "base64")),
        credentialPublicKey: new Uint8Array(Buffer.from(passkey.credentialPublicKey, "base64")),
        counter: passkey.counter,
      },
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (/user verification/i.test(why)) throw refused("Your passkey did not verify you (no fingerprint, face or PIN): this needs user verification.");
    throw refused("The passkey confirmation could not be verified: confirm again.");
  }
  if (!verification.verified) throw refused("The passkey confirmation could not be verified: confirm again.");

  await q.update(authenticators).set({ counter: verification.authenticationInfo.newCounter }).where(eq(authenticators.credentialID, passkey.credentialID));
  return passkey.credentialID;
}

/** Which passkey confirmed each member's decision on an approval (member id → credential id). */
export async function decisionPasskeys(workspaceId: string, approvalId: string): Promise<Map<string, string>> {
  const q = await queryable();
  const rows = await q
    .select({ memberId: approvalDecisions.memberId, credentialId: approvalDecisions.passkeyCredentialId })
    .from(approvalDecisions)
    .where(and(eq(approvalDecisions.workspaceId, workspaceId), eq(approvalDecisions.approvalId, approvalId), isNotNull(approvalDecisions.passkeyCredentialId)));
  return new Map(rows.map((r) => [r.memberId, r.credentialId!]));
}
