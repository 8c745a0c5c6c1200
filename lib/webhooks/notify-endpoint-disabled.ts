import { and, eq } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { members } from "../../db/schema";
import { sendMail } from "../mail/send-mail";

export type EndpointDisabledNotice = { workspaceId: string; endpointId: string; url: string; reason: string };

/**
 * Tells the workspace owners by mail (Resend, or captured in the web app) that an endpoint
 * was disabled, and logs it. The audit entry written with the change is the durable record.
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
  if (recipients.length) {
    await sendMail({
      workspaceId: notice.workspaceId,
      to: recipients,
      kind: "webhook_endpoint_disabled",
      subject: `Webhook endpoint disabled: ${notice.url}`,
      text:
        `AgentDraft stopped delivering webhooks to ${notice.url} (${notice.endpointId}): ${notice.reason}.\n\n` +
        `Events are still recorded. Fix the endpoint, then re-enable it with PATCH /api/v1/webhook-endpoints/${notice.endpointId} {"enabled": true}.`,
    });
  }
  return recipients;
}
