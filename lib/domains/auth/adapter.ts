import { DrizzleAdapter } from "@auth/drizzle-adapter";
import type { Adapter, AdapterUser } from "next-auth/adapters";
import type { Database } from "../../../db/client";
import { authAccounts, authenticators, sessions, users } from "../../../db/schema";
import { addPasskey, assertRecentlyAuthenticated, hasPasskey, recordAssertion } from "../passkeys";
import { registerUser } from "./registration";

/**
 * The Auth.js drizzle adapter on our tables, with these changes: a new user is created only
 * together with a membership (first run or an invitation, read by `readIntent`); every new
 * passkey is audited; adding a passkey to an account that has one needs a recent passkey
 * confirmation on the current session (`readSessionToken`), and each verified assertion records one.
 */
export function agentDraftAdapter(db: Database, readIntent: () => Promise<unknown>, readSessionToken: () => Promise<string | undefined> = async () => undefined): Adapter {
  const base = DrizzleAdapter(db, {
    usersTable: users as never,
    accountsTable: authAccounts as never,
    sessionsTable: sessions as never,
    authenticatorsTable: authenticators as never,
  });
  return {
    ...base,
    async createUser(data: AdapterUser) {
      const user = await registerUser(await readIntent(), data.email);
      return { id: user.id, email: user.email, name: user.name, emailVerified: user.emailVerified, image: user.image };
    },
    async getUserByEmail(email: string) {
      return base.getUserByEmail!(email.trim().toLowerCase());
    },
    // A signed-in person adding a passkey (they have one already) must have confirmed one recently.
    async linkAccount(account) {
      if (account.type === "webauthn" && (await hasPasskey(account.userId))) {
        await assertRecentlyAuthenticated(account.userId, await readSessionToken());
      }
      await base.linkAccount!(account);
    },
    // Every verified assertion: a confirmation made while signed in refreshes that session.
    async updateAuthenticatorCounter(credentialID, counter) {
      const row = await base.updateAuthenticatorCounter!(credentialID, counter);
      await recordAssertion(await readSessionToken(), credentialID);
      return row;
    },
    async createAuthenticator(data) {
      const row = await addPasskey({ ...data, transports: data.transports ?? null });
      return { ...row, transports: row.transports ?? undefined } as never;
    },
  };
}
