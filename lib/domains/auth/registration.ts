import { sql } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { members, users, type MemberRow, type UserRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { appendAudit } from "../../platform/audit/append-audit";
import { createWorkspace, createWorkspaceInput } from "../workspaces";
import { claimInvitation, lockInvitationByToken } from "../invitations";
import { isSetupOpen } from "./setup-status";
import { isSetupToken } from "./setup-token";

const personName = z.string().trim().min(1, "enter your name").max(100);
const email = z.email("enter an email address").trim().toLowerCase().max(254);

/** First run: the visitor creates a workspace and becomes its owner. */
export const setupIntent = z.object({
  kind: z.literal("setup"),
  workspaceName: createWorkspaceInput.shape.name,
  name: personName,
  email,
  setupToken: z.string().trim().min(1, "enter the setup token").max(200),
});
/** Accepting an invitation: the token from the link, and the name to show. */
export const invitationIntent = z.object({ kind: z.literal("invitation"), token: z.string().min(10).max(200), name: personName });
/**
 * What a visitor without an account is registering a passkey for. The web app keeps it in an
 * httpOnly cookie between the form and the passkey ceremony; it grants nothing by itself.
 */
export const registrationIntent = z.discriminatedUnion("kind", [setupIntent, invitationIntent]);
export type RegistrationIntent = z.infer<typeof registrationIntent>;

const refused = (detail: string) => new AppError("forbidden", detail);

/**
 * Creates the user whose first passkey is being registered, and in the same transaction
 * makes them a member: the owner of a new workspace (first run, only while no one has an
 * account) or the role of the invitation they hold. Without a valid intent for this email
 * nothing is created, so nobody gets an account that belongs to no workspace.
 */
export async function registerUser(rawIntent: unknown, registeringEmail: string): Promise<UserRow> {
  const parsed = registrationIntent.safeParse(rawIntent);
  if (!parsed.success) throw refused("Registration is by invitation, or on first run.");
  const intent = parsed.data;
  const address = registeringEmail.trim().toLowerCase();
  return transaction(async (tx) => {
    if (intent.kind === "setup") {
      if (intent.email !== address) throw refused("The passkey's email is not the one given in the setup form.");
      if (!isSetupToken(intent.setupToken)) throw refused("The setup token is not right: it is printed by `npm run dev`, or set as AGENTDRAFT_SETUP_TOKEN.");
      // Serialises concurrent first runs: exactly one becomes the first owner.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('agentdraft:first-run'))`);
      if (!(await isSetupOpen())) throw refused("This AgentDraft is already set up: ask its owner for an invitation.");
      const user = await insertUser(tx, address, intent.name);
      const memberId = newId("member");
      const workspace = await createWorkspace({ name: intent.workspaceName }, (workspaceId) => ({ type: "member", workspaceId, memberId }));
      const [member] = await tx
        .insert(members)
        .values({ id: memberId, workspaceId: workspace.id, email: address, name: intent.name, role: "owner", userId: user.id })
        .returning();
      await appendAudit(tx, [
        { actor: { type: "member", workspaceId: workspace.id, memberId }, action: "member.joined", resource: { type: "member", id: member!.id }, summary: { email: address, role: "owner", via: "first_run" } },
      ]);
      return user;
    }
    const user = await insertUser(tx, address, intent.name);
    await claimInvitation(tx, await lockInvitationByToken(tx, intent.token), user);
    return user;
  });
}

/** A signed-in user accepts an invitation addressed to their email. */
export async function acceptInvitation(token: string, user: Pick<UserRow, "id" | "email" | "name">): Promise<MemberRow> {
  return transaction(async (tx) => claimInvitation(tx, await lockInvitationByToken(tx, token), user));
}

async function insertUser(tx: Transaction, email: string, name: string): Promise<UserRow> {
  const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`);
  if (existing) throw refused("An account with this email already exists: sign in with its passkey instead.");
  const [user] = await tx.insert(users).values({ id: newId("user"), email, name }).returning();
  return user!;
}
