import { eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { notificationChannels, type MemberRow } from "../../../db/schema";
import { open } from "../../platform/crypto/secret-box";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { findChannel } from "./channels";
import { appOrigin } from "./load-notice";
import { testNotice } from "./notice";
import { DeliveryError, SENDERS } from "./providers";

/**
 * "Send test message": posts a test notice to the channel now (not through the queue: the admin
 * waits for the answer), records the channel's health from it, and audits the attempt.
 */
export async function sendTestMessage(by: MemberRow, channelId: string): Promise<{ ok: true } | { ok: false; error: string }> {
  assertRole(by.role, "admin", "manage notification channels");
  const channel = await findChannel(by.workspaceId, channelId);
  const now = new Date();
  let error: string | null = null;
  try {
    await SENDERS[channel.kind].post({ channel, secret: open(channel.secretSealed), recipientEmail: null }, testNotice(channel.name, appOrigin(), now));
  } catch (err) {
    error = err instanceof DeliveryError ? err.message : `Could not send: ${(err as Error).message}`;
  }
  await transaction(async (tx) => {
    await tx
      .update(notificationChannels)
      .set(error ? { lastError: error, lastErrorAt: now } : { lastError: null, failingSince: null, failedAt: null, lastSuccessAt: now })
      .where(eq(notificationChannels.id, channel.id));
    await appendAudit(tx, [
      { actor: memberActor(by), action: "notification_channel.tested", resource: { type: "notification_channel", id: channel.id }, agentId: null, outcome: error ? "failed" : "succeeded", summary: { kind: channel.kind, error } },
    ]);
  });
  return error ? { ok: false, error } : { ok: true };
}
