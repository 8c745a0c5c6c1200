import { and, eq } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { members } from "../../../db/schema";
import { queueMail } from "../mail";

export type EndpointDisabledNotice = { workspaceId: string; endpointId: string; url: string; reason: string };

/**
 * Tells the workspace owners by mail (Resend, or captured in the web app) that an endpoint
 * was disabled, queued in the transaction that disabled it (so the notice is never lost), and
 * logs it. Returns the recipients.
 */
export async function notifyEndpointDisabled(tx: Transaction, notice: EndpointDisabledNotice): Promise<string[]> {
  const owners = await tx
    .select({ email: members.email })
    .from(members)
    .where(and(eq(members.workspaceId, notice.workspaceId), eq(members.role, "owner")));
  const recipients = owners.map((o) => o.email);
  console.warn(
    `[webhooks] endpoint ${notice.endpointId} (${notice.url.length > 120 ? `${notice.url.slice(0, 120)}…` : notice.url}) in ${notice.workspaceId} was disabled: ${notice.reason}.` +
      (recipients.length ? ` Owners to notify: ${recipients.join(", ")}.` : " The workspace has no owner to notify."),
  );
  if (recipients.length) {
    await queueMail(tx, {
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
