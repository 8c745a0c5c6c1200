import { pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt } from "./columns";
import { newId } from "../../lib/platform/ids";

/**
 * A person who signs in (Auth.js "user"). Workspace membership and roles live in `members`;
 * a user reaches a workspace only through a member row.
 */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey().$defaultFn(() => newId("user")),
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
