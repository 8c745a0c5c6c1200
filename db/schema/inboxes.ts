import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { agents } from "./agents";
import { mailDomains } from "./mail-domains";

/** An agent's email address. Addresses are unique across the deployment (mail routes by address). */
export const inboxes = pgTable(
  "inboxes",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    /** Lower-case `username@domain`. */
    address: text("address").notNull(),
    /** The workspace's own domain the address is on; null on AGENTDRAFT_MAIL_DOMAIN. A domain with inboxes cannot be deleted. */
    domainId: text("domain_id").references(() => mailDomains.id),
    displayName: text("display_name"),
    /** Sender rules: an address (`a@b.com`) or a domain (`@b.com`). A non-empty allow list admits only matches. */
    allowSenders: text("allow_senders").array().notNull().default([]),
    blockSenders: text("block_senders").array().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("inboxes_address_key").on(t.address), index("inboxes_workspace_idx").on(t.workspaceId, t.id), index("inboxes_domain_idx").on(t.domainId)],
);

export type InboxRow = typeof inboxes.$inferSelect;
