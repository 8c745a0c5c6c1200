import { sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";

/**
 * Whether a sender is inside the workspace (SPEC §13): a member, an inbox of this workspace, or an
 * address at a domain its admins trust (`workspaces.trusted_domains`). Anyone else is outside,
 * other workspaces on this deployment included: mail from outside is untrusted however well it
 * authenticates (any Gmail account passes DMARC). One statement, judged when the mail arrives.
 */
export async function senderInside(tx: Transaction, workspaceId: string, email: string): Promise<boolean> {
  const from = email.trim().toLowerCase();
  const { rows } = await tx.execute<{ inside: boolean }>(sql`
    select exists (select 1 from members m where m.workspace_id = ${workspaceId} and lower(m.email) = ${from})
      or exists (select 1 from inboxes i where i.workspace_id = ${workspaceId} and lower(i.address) = ${from})
      or exists (select 1 from workspaces w where w.id = ${workspaceId} and split_part(${from}, '@', 2) = any(w.trusted_domains)) as inside`);
  return rows[0]?.inside === true;
}
