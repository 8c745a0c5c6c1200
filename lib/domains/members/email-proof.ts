import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { emailProofs, members, users } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { configuredTransport, sendMail, type MailTransport } from "../mail";
import { auditForUser } from "../passkeys";

/**
 * Proving a member's email address.
 *
 * A secret proves an address only if it reached nobody but that mailbox. Without a mail provider
 * (the embedded default, `MAIL_CAPTURE_ONLY=1`, a preview) every mail is captured and shown to
 * admins under Captured mail: an invitation link or a code sent that way is readable by the admin
 * who typed the address, so it proves nothing. So:
 * - accepting an invitation whose link went out through a provider proves the address
 *   (registration.ts); a captured one binds the invitation to the member who accepted it and
 *   leaves the address unproven, shown as such;
 * - an unproven address is proven later with a one-time code, mailed only through a provider
 *   (stored redacted), never captured: without a provider, asking for one is refused.
 */

export const EMAIL_CODE_TTL_MS = 15 * 60_000;
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** A new code no sooner than this after the last one (each one is a mail to a person). */
export const EMAIL_CODE_RESEND_MS = 60_000;

export const proveEmailInput = z.object({ code: z.string().trim().regex(/^\d{6}$/, "enter the 6-digit code from the mail") });

const hashCode = (userId: string, code: string) => createHash("sha256").update(`${userId}:${code}`).digest("hex");

/** Whether the user's address is proven (`users.email_verified`). */
export async function isEmailProven(userId: string): Promise<boolean> {
  const q = await queryable();
  const [row] = await q.select({ at: users.emailVerified }).from(users).where(eq(users.id, userId));
  return Boolean(row?.at);
}

/** The members of a workspace whose address is proven (the others are shown as unproven). */
export async function provenMemberIds(workspaceId: string): Promise<Set<string>> {
  const q = await queryable();
  const rows = await q
    .select({ id: members.id })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.workspaceId, workspaceId), isNotNull(users.emailVerified), sql`lower(${users.email}) = lower(${members.email})`));
  return new Set(rows.map((r) => r.id));
}

/**
 * Mails a one-time code to the user's address, through the mail provider only. Refused without
 * one: a captured code is readable by admins and would prove nothing.
 */
export async function requestEmailProof(userId: string, transport: MailTransport | null = configuredTransport()): Promise<{ email: string }> {
  if (!transport) {
    throw new AppError(
      "conflict",
      "This AgentDraft has no mail provider: a code would only be captured here, where admins can read it, so it could not prove your address. An operator can set RESEND_API_KEY.",
    );
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const { email, workspaceId } = await transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).for("update");
    if (!user) throw new AppError("not_found", "No such account.");
    if (user.emailVerified) throw new AppError("conflict", "Your email address is already proven.");
    const [recent] = await tx
      .select({ id: emailProofs.userId })
      .from(emailProofs)
      .where(and(eq(emailProofs.userId, userId), sql`${emailProofs.createdAt} > now() - make_interval(secs => ${EMAIL_CODE_RESEND_MS / 1000})`));
    if (recent) throw new AppError("rate_limited", "A code was sent less than a minute ago: check your mailbox, or ask again in a minute.");
    const [membership] = await tx.select({ workspaceId: members.workspaceId }).from(members).where(eq(members.userId, userId)).orderBy(asc(members.createdAt)).limit(1);
    if (!membership) throw new AppError("forbidden", "Your account belongs to no workspace.");
    const values = {
      userId,
      email: user.email,
      codeHash: hashCode(userId, code),
      attempts: 0,
      createdAt: new Date(),
      expiresAt: sql`now() + make_interval(secs => ${EMAIL_CODE_TTL_MS / 1000})` as unknown as Date,
    };
    await tx.insert(emailProofs).values(values).onConflictDoUpdate({ target: emailProofs.userId, set: { ...values, createdAt: sql`now()` as unknown as Date } });
    return { email: user.email, workspaceId: membership.workspaceId };
  });
  await sendMail(
    {
      workspaceId,
      to: email,
      kind: "email_proof",
      subject: "Your AgentDraft code",
      text: `Your code to prove this address on AgentDraft: ${code}\n\nIt works once and expires in 15 minutes. If you did not ask for it, ignore this mail.`,
    },
    transport,
    { secrets: [code] },
  );
  return { email };
}

/** Proves the user's address with the code mailed by `requestEmailProof`; wrong guesses are counted, and spend it. */
export async function proveEmail(userId: string, input: z.input<typeof proveEmailInput>): Promise<void> {
  const parsed = proveEmailInput.safeParse(input);
  if (!parsed.success) throw new AppError("validation_failed", "Enter the 6-digit code from the mail.", { errors: [{ field: "code", message: "6 digits" }] });
  const { code } = parsed.data;
  const outcome = await transaction(async (tx) => {
    const [proof] = await tx
      .select({ row: emailProofs, live: sql<boolean>`${emailProofs.expiresAt} > clock_timestamp()` })
      .from(emailProofs)
      .where(eq(emailProofs.userId, userId))
      .for("update");
    if (!proof || !proof.live || proof.row.attempts >= EMAIL_CODE_MAX_ATTEMPTS) return "none" as const;
    const [user] = await tx.select().from(users).where(eq(users.id, userId));
    const expected = Buffer.from(proof.row.codeHash, "hex");
    const given = Buffer.from(hashCode(userId, code), "hex");
    if (!user || user.email.toLowerCase() !== proof.row.email.toLowerCase() || !timingSafeEqual(expected, given)) {
      await tx.update(emailProofs).set({ attempts: sql`${emailProofs.attempts} + 1` }).where(eq(emailProofs.userId, userId));
      return "wrong" as const;
    }
    await tx.delete(emailProofs).where(eq(emailProofs.userId, userId));
    await tx.update(users).set({ emailVerified: sql`now()` as unknown as Date }).where(eq(users.id, userId));
    await auditForUser(tx, userId, { action: "member.email_proven", resource: { type: "user", id: userId }, summary: { email: user.email, via: "code" } });
    return "proven" as const;
  });
  if (outcome === "none") throw new AppError("conflict", "There is no code to check (none was sent, it expired or it was guessed wrong too often): ask for a new one.");
  if (outcome === "wrong") throw new AppError("validation_failed", "That code is not right.", { errors: [{ field: "code", message: "not the code that was mailed" }] });
}
