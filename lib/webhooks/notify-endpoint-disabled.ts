import { and, eq } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { members } from "../../db/schema";

export type EndpointDisabledNotice = { workspaceId: string; endpointId: string; url: string; reason: string };

/**
 * Tells the workspace owners that an endpoint was disabled. There is no mail module yet: this
 * logs one line per owner and returns the addresses, so the mail module can send from here
 * later. The audit entry written with the change is the durable record.
 */
export async function notifyEndpointDisabled(notice: EndpointDisabledNotice): Promise<string[]> {
  const q = await queryable();
  const owners = await q
    .select({ email: members.email })
    .from(members)
    .where(and(eq(members.workspaceId, notice.workspaceId), eq(members.role, "owner")));
  const recipients = owners.map((o) => o.email);
  console.warn(
    `[webhooks] endpoint ${notice.endpointId} (${notice.url}) in ${notice.workspaceId} was disabled: ${notice.reason}.` +
      (recipients.length ? ` Owners to notify: ${recipients.join(", ")}.` : " The workspace has no owner to notify."),
  );
  return recipients;
}
