import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";

/**
 * The first recipient the workspace does not trust, or null (SPEC §13). Trusted: a member of the
 * workspace, an inbox of the workspace, an address at a domain its admins trust
 * (`workspaces.trusted_domains`), or an address the workspace has really sent to before (not
 * mail still held or discarded). Never merely someone who wrote in: anyone can write in. One
 * statement for all recipients.
 */
export async function untrustedRecipient(workspaceId: string, recipients: string[]): Promise<string | null> {
  if (!recipients.length) return null;
  const q = await queryable();
  const list = sql.join(recipients.map((r) => sql`(${r.trim().toLowerCase()})`), sql`, `);
  const { rows } = await q.execute<{ email: string }>(sql`
    select r.email from (values ${list}) r(email)
    where not exists (select 1 from members m where m.workspace_id = ${workspaceId} and lower(m.email) = r.email)
      and not exists (select 1 from inboxes i where i.workspace_id = ${workspaceId} and lower(i.address) = r.email)
      and not exists (select 1 from workspaces w where w.id = ${workspaceId} and split_part(r.email, '@', 2) = any(w.trusted_domains))
      and not exists (
        select 1 from messages o
        where o.workspace_id = ${workspaceId} and o.direction = 'outbound' and o.status not in ('pending_approval', 'discarded')
          and (o."to" @> jsonb_build_array(jsonb_build_object('email', r.email)) or o.cc @> jsonb_build_array(jsonb_build_object('email', r.email)))
      )
    limit 1`);
  return rows[0]?.email ?? null;
}
