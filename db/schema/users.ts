import { pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt } from "./columns";

/**
 * A person who signs in (Auth.js "user"). Workspace membership and roles live in `members`;
 * a user reaches a workspace only through a member row.
 */
export const users = pgTable(
  "users",
  {
    // Ids are minted in lib/ (`newId("user")`, registration and the Auth.js adapter): the data floor knows no id rule.
    id: text("id").primaryKey(),
    name: text("name"),
    email: text("email").notNull(),
    emailVerified: timestamp("email_verified", { withTimezone: true, mode: "date" }),
    image: text("image"),
    /** The IANA zone the web app shows times in; null: the browser's (a cookie), else UTC. */
    timeZone: text("time_zone"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(sql`lower(${t.email})`)],
);

export type UserRow = typeof users.$inferSelect;
