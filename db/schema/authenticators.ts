import { boolean, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/** Passkeys (WebAuthn credentials) of a user, as the Auth.js adapter expects them. */
export const authenticators = pgTable(
  "authenticators",
  {
    credentialID: text("credential_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    providerAccountId: text("provider_account_id").notNull(),
    credentialPublicKey: text("credential_public_key").notNull(),
    counter: integer("counter").notNull(),
    credentialDeviceType: text("credential_device_type").notNull(),
    credentialBackedUp: boolean("credential_backed_up").notNull(),
    transports: text("transports"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).defaultNow(),
  },
  (t) => [
    primaryKey({ name: "authenticators_pkey", columns: [t.userId, t.credentialID] }),
    uniqueIndex("authenticators_credential_id_key").on(t.credentialID),
  ],
);

export type AuthenticatorRow = typeof authenticators.$inferSelect;
