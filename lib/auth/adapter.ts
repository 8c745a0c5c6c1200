import { DrizzleAdapter } from "@auth/drizzle-adapter";
import type { Adapter, AdapterUser } from "next-auth/adapters";
import type { Database } from "../../db/client";
import { authAccounts, authenticators, sessions, users } from "../../db/schema";
import { addPasskey } from "../passkeys/passkeys";
import { registerUser } from "./registration";

/**
 * The Auth.js drizzle adapter on our tables, with two changes: a new user is created only
 * together with a membership (first run or an invitation, read by `readIntent`), and every
 * new passkey is audited.
 */
export function agentDraftAdapter(db: Database, readIntent: () => Promise<unknown>): Adapter {
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
    async createAuthenticator(data) {
      const row = await addPasskey({ ...data, transports: data.transports ?? null });
      return { ...row, transports: row.transports ?? undefined } as never;
    },
  };
}
