import { and, eq, isNull, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { members, notificationChannels, notificationMessages, type NotificationChannelRow, type NotificationMessageRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { open } from "../../platform/crypto/secret-box";
import { appendAudit } from "../../platform/audit/append-audit";
import { drainDue } from "../../platform/jobs/due";
import { retryDelayMs } from "../../platform/outbound/retry-schedule";
import { loadNotice } from "./load-notice";
import { capturesOutbound } from "../../platform/config/preview";
import { CAPTURED_NOTE, recordCapture } from "../../platform/outbound/captures";
import { DeliveryError, PROVIDER_TIMEOUT_MS, SENDERS, type ProviderRef, type Sender } from "./providers";
import { quietUntil, routesTo } from "./routing";
import { queuedNotificationsSource } from "./queue-notifications";

/** A claimed message is not picked again for this long, unless its attempt ends first (longer than any attempt). */
const LEASE_MS = 3 * PROVIDER_TIMEOUT_MS + 15_000;
/** A resolution waits this long after its request's message, so the update finds it posted. */
const AFTER_REQUEST_MS = 2_000;

export type Outcome = { result: "sent" | "retried" | "deferred" | "failed" | "skipped"; retryAt: Date | null; error?: string };

/**
 * One unit of work: one attempt of one message. Claims it with a lease (a conditional UPDATE:
 * two runs never make the same attempt), reads what it tells of now, posts it (or updates the
 * message posted for the request it follows), and records the outcome: sent; retried on the
 * webhook schedule (5 s … 10 h, 8 attempts) or when the app's Retry-After says; failed (the
 * channel is marked failing and audited once); skipped (nothing to say any more). Quiet hours
 * move a new message to their end without counting an attempt. Null: nothing to do.
 */
export async function deliverNotification(id: string, o: { now?: Date; senders?: Record<string, Sender> } = {}): Promise<Outcome | null> {
  const now = o.now ?? new Date();
  const claimed = await claim(id, now);
  if (!claimed) return null;
  const { message: m, channel } = claimed;
  const q = await queryable();
  const notice = await loadNotice(q, m, channel, now);
  if (!notice) return finish(m, { status: "skipped", error: "What it told of no longer exists." });

  let recipientEmail: string | null = null;
  if (m.recipient) {
    const [member] = await q.select({ email: members.email }).from(members).where(and(eq(members.id, m.recipient), eq(members.workspaceId, m.workspaceId)));
    if (!member) return finish(m, { status: "skipped", error: "The member is no longer in the workspace." });
    recipientEmail = member.email;
  }

  // What to do: post a new message, update the one posted for the request, or both (an escalation).
  let update: ProviderRef | null = null;
  let post: boolean;
  if (m.type === "approval.requested") {
    if (notice.type === "approval.resolved") return finish(m, { status: "skipped", error: "Decided (or expired) before it could be sent." });
    post = true;
  } else if (m.type === "approval.resolved" || m.type === "approval.escalated") {
    const [original] = await q
      .select()
      .from(notificationMessages)
      .where(and(eq(notificationMessages.channelId, m.channelId), eq(notificationMessages.subjectId, m.subjectId), eq(notificationMessages.type, "approval.requested"), eq(notificationMessages.recipient, m.recipient)));
    if (original?.status === "queued") return defer(m, new Date(Math.max(now.getTime(), original.nextAttemptAt?.getTime() ?? 0) + AFTER_REQUEST_MS));
    const sender = SENDERS[channel.kind];
    const posted = original?.status === "sent";
    if (posted && sender.update && original.providerRef) update = { channel: original.providerChannel, ref: original.providerRef };
    const wanted = m.recipient === "" && routesTo(channel, m.type);
    post = m.type === "approval.escalated" ? wanted && notice.type === "approval.escalated" : !update && (wanted || posted) && m.recipient === "";
    if (!update && !post) return finish(m, { status: "skipped", error: "Nothing to update and this channel does not take it." });
  } else post = true;

  if (post) {
    const until = quietUntil(channel, now);
    if (until) return defer(m, until);
  }

  // A preview deployment's copy of production's channels: the notice is recorded and shown, never posted.
  if (capturesOutbound("notifications")) {
    await recordCapture({ workspaceId: m.workspaceId, kind: "notifications", target: `${channel.kind}: ${channel.name}`, summary: { notification_id: m.id, type: m.type, subject_id: m.subjectId, update: update !== null } });
    return finish(m, { status: "skipped", error: CAPTURED_NOTE });
  }
  const senders = o.senders ?? SENDERS;
  const sender = senders[channel.kind]!;
  const target = { channel, secret: open(channel.secretSealed), recipientEmail };
  const started = performance.now();
  try {
    if (update) await sender.update!(target, update, notice);
    const ref = post ? await sender.post(target, notice) : null;
    return finish(m, { status: "sent", ref: ref ?? update }, channel);
  } catch (err) {
    const e = err instanceof DeliveryError ? err : new DeliveryError(`Could not send: ${(err as Error).message}`);
    if (e.o.skip) return finish(m, { status: "skipped", error: e.message });
    const waitMs = e.o.retryAfterMs ?? (e.o.permanent ? null : retryDelayMs(m.attempts));
    // The wait counts from when the answer arrived (on the caller's clock), not from the start of
    // the attempt: a service that took 10 s to say "retry after 30" is not asked again 20 s later.
    const answeredAt = now.getTime() + Math.ceil(performance.now() - started);
    return waitMs === null ? finish(m, { status: "failed", error: e.message }, channel) : retry(m, channel, e.message, new Date(answeredAt + waitMs));
  }
}

/** Delivers every due message (tests and the CLI; in the server each message is its own run). */
export const deliverDueNotifications = (): Promise<number> => drainDue(queuedNotificationsSource, async (id) => (await deliverNotification(id))?.result === "sent");

async function claim(id: string, now: Date): Promise<{ message: NotificationMessageRow; channel: NotificationChannelRow } | null> {
  const q = await queryable();
  const nowIso = now.toISOString();
  const { rows } = await q.execute<{ m: Record<string, unknown>; c: Record<string, unknown> }>(sql`
    with claimed as (
      update notification_messages m
      set attempts = m.attempts + 1, next_attempt_at = ${new Date(now.getTime() + LEASE_MS).toISOString()}::timestamptz, updated_at = ${nowIso}::timestamptz
      from notification_channels c
      where m.id = ${id} and m.status = 'queued' and m.next_attempt_at <= ${nowIso}::timestamptz and c.id = m.channel_id and c.enabled
      returning m.*
    )
    select row_to_json(claimed) as m, row_to_json(c) as c from claimed join notification_channels c on c.id = claimed.channel_id`);
  const row = rows[0];
  if (!row) return null;
  return { message: rowFromJson(notificationMessages, jsonValue(row.m)), channel: rowFromJson(notificationChannels, jsonValue(row.c)) };
}

const mine = (m: NotificationMessageRow) => and(eq(notificationMessages.id, m.id), eq(notificationMessages.status, "queued"));

/** Not now (quiet hours, or the request's message is not posted yet): due again at `at`, the attempt not counted. */
async function defer(m: NotificationMessageRow, at: Date): Promise<Outcome> {
  await (await queryable()).update(notificationMessages).set({ attempts: sql`greatest(${notificationMessages.attempts} - 1, 0)`, nextAttemptAt: at, updatedAt: new Date() }).where(mine(m));
  return { result: "deferred", retryAt: at };
}

async function retry(m: NotificationMessageRow, channel: NotificationChannelRow, error: string, at: Date): Promise<Outcome> {
  await transaction(async (tx) => {
    await tx.update(notificationMessages).set({ lastError: error, nextAttemptAt: at, updatedAt: new Date() }).where(mine(m));
    await tx
      .update(notificationChannels)
      .set({ lastError: error, lastErrorAt: new Date(), failingSince: sql`coalesce(${notificationChannels.failingSince}, now())` })
      .where(eq(notificationChannels.id, channel.id));
  });
  return { result: "retried", retryAt: at, error };
}

type Final = { status: "sent"; ref: ProviderRef | null } | { status: "failed" | "skipped"; error: string };

async function finish(m: NotificationMessageRow, f: Final, channel?: NotificationChannelRow): Promise<Outcome> {
  const at = new Date();
  await transaction(async (tx) => {
    const set =
      f.status === "sent"
        ? { status: "sent" as const, providerChannel: f.ref?.channel ?? null, providerRef: f.ref?.ref ?? null, sentAt: at, lastError: null }
        : { status: f.status, lastError: f.error };
    const [done] = await tx.update(notificationMessages).set({ ...set, nextAttemptAt: null, updatedAt: at }).where(mine(m)).returning({ id: notificationMessages.id });
    if (!done || !channel) return;
    if (f.status === "sent") {
      // Healthy again: one statement, and only when there was something to clear.
      if (channel.failingSince || channel.failedAt || channel.lastError) {
        await tx.update(notificationChannels).set({ failingSince: null, failedAt: null, lastError: null, lastSuccessAt: at }).where(eq(notificationChannels.id, channel.id));
      } else await tx.update(notificationChannels).set({ lastSuccessAt: at }).where(eq(notificationChannels.id, channel.id));
      return;
    }
    // Gave up: the channel shows it, and the trail says so once per failing streak (the first to set failed_at).
    await tx
      .update(notificationChannels)
      .set({ lastError: f.error, lastErrorAt: at, failingSince: sql`coalesce(${notificationChannels.failingSince}, now())` })
      .where(eq(notificationChannels.id, channel.id));
    const [marked] = await tx
      .update(notificationChannels)
      .set({ failedAt: at })
      .where(and(eq(notificationChannels.id, channel.id), isNull(notificationChannels.failedAt)))
      .returning({ id: notificationChannels.id });
    if (marked) {
      await appendAudit(tx, [
        {
          actor: { type: "system", workspaceId: m.workspaceId, job: "notification-delivery" },
          action: "notification_channel.failed",
          resource: { type: "notification_channel", id: channel.id },
          agentId: null,
          outcome: "failed",
          summary: { kind: channel.kind, message_id: m.id, notification_type: m.type, attempts: m.attempts, error: f.error },
        },
      ]);
    }
  });
  return f.status === "sent" ? { result: "sent", retryAt: null } : { result: f.status, retryAt: null, error: f.error };
}
