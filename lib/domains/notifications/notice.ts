import type { NotificationType } from "../../../db/schema";

/** The colour of a notice's state, for the apps that show one (Slack's attachment bar, Discord's embed, Teams' emphasis). */
export type NoticeTone = "amber" | "green" | "red" | "slate";

/**
 * What one message says, before any app's format: built at delivery time from the subject's
 * current state (the queue stores references only). `title` and `footer` are ours; `summary`,
 * field values, `note` and `evidence` come from agents or outside services and are escaped by
 * each format.
 */
export type Notice = {
  type: NotificationType | "test";
  title: string;
  tone: NoticeTone;
  summary: string | null;
  fields: { label: string; value: string }[];
  note: string | null;
  link: { url: string; label: string };
  footer: string;
  /** Only when the channel's include_evidence is on. */
  evidence: string | null;
};

export const DECIDED_SIGNED_IN = "Decisions are made signed in to AgentDraft, in the approval queue. This message cannot approve or deny anything.";

/** The longest evidence shown (the rest is in the queue). */
export const EVIDENCE_MAX_CHARS = 1500;

/** "3 min", "2.5 h", "4 d": a duration for people. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round((s / 3600) * 10) / 10} h`;
  return `${Math.round((s / 86_400) * 10) / 10} d`;
}

export const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export type ApprovalFacts = {
  id: string;
  summary: string;
  status: "pending" | "approved" | "denied" | "expired" | "cancelled";
  escalated: boolean;
  agentName: string | null;
  actionClass: string | null;
  amount: string | null;
  currency: string | null;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedBy: string[];
  note: string | null;
  evidence: unknown;
};

const STATE: Record<ApprovalFacts["status"], { title: string; tone: NoticeTone }> = {
  pending: { title: "Approval requested", tone: "amber" },
  approved: { title: "Approved", tone: "green" },
  denied: { title: "Denied", tone: "red" },
  expired: { title: "Expired without a decision", tone: "slate" },
  cancelled: { title: "Withdrawn by the agent", tone: "slate" },
};

/** An approval as it stands now (pending, escalated, or how it ended). */
export function approvalNotice(a: ApprovalFacts, o: { origin: string; now: Date; includeEvidence: boolean }): Notice {
  const pending = a.status === "pending" && a.expiresAt > o.now;
  const status = a.status === "pending" && !pending ? "expired" : a.status;
  const state = pending && a.escalated ? { title: "Still waiting for approval (escalated)", tone: "red" as const } : STATE[status];
  const fields: Notice["fields"] = [{ label: "Agent", value: a.agentName ?? "an agent" }];
  if (a.actionClass || a.amount !== null) {
    fields.push({ label: "Action", value: [a.actionClass, a.amount !== null ? `${Number(a.amount)}${a.currency ? ` ${a.currency}` : ""}` : null].filter(Boolean).join(" · ") });
  }
  fields.push({ label: "Asked", value: `${humanDuration(o.now.getTime() - a.createdAt.getTime())} ago (${utc(a.createdAt)})` });
  if (pending) fields.push({ label: "Expires", value: `in ${humanDuration(a.expiresAt.getTime() - o.now.getTime())} (${utc(a.expiresAt)})` });
  else if (a.decidedAt) fields.push({ label: status === "expired" ? "Expired" : "Decided", value: utc(a.decidedAt) });
  if (a.decidedBy.length && !pending) fields.push({ label: "Decided by", value: a.decidedBy.join(", ") });
  return {
    type: pending ? (a.escalated ? "approval.escalated" : "approval.requested") : "approval.resolved",
    title: state.title,
    tone: state.tone,
    summary: a.summary,
    fields,
    note: pending ? null : a.note,
    link: { url: `${o.origin}/approvals`, label: pending ? "Review and decide in the approval queue" : "Open the approval history" },
    footer: DECIDED_SIGNED_IN,
    evidence: o.includeEvidence && pending ? evidenceText(a.evidence) : null,
  };
}

function evidenceText(evidence: unknown): string {
  const json = JSON.stringify(evidence, null, 2) ?? "null";
  return json.length <= EVIDENCE_MAX_CHARS ? json : `${json.slice(0, EVIDENCE_MAX_CHARS - 1)}…`;
}

export function endpointDisabledNotice(e: { id: string; url: string; reason: string | null; disabledAt: Date | null }, origin: string): Notice {
  return {
    type: "webhook_endpoint.disabled",
    title: "Webhook endpoint disabled",
    tone: "red",
    summary: `AgentDraft stopped delivering webhooks to ${e.url}.`,
    fields: [
      { label: "Endpoint", value: e.id },
      { label: "Reason", value: e.reason ?? "disabled" },
      ...(e.disabledAt ? [{ label: "Disabled", value: utc(e.disabledAt) }] : []),
    ],
    note: null,
    link: { url: `${origin}/overview`, label: "Open AgentDraft" },
    footer: "Events are still recorded. Fix the endpoint, then re-enable it (PATCH /api/v1/webhook-endpoints/{id} with enabled: true).",
    evidence: null,
  };
}

export function syncFailedNotice(
  f: { calendarId: string; calendarName: string | null; direction: "import" | "export"; error: string | null; at: Date; provider?: "google" | "microsoft" },
  origin: string,
): Notice {
  const microsoft = f.provider === "microsoft";
  return {
    type: "calendar.sync_failed",
    title: f.direction === "import" ? "Calendar sync failed" : "Calendar export failed",
    tone: "red",
    summary: `${f.direction === "import" ? "Importing busy time from" : "Exporting an event to"} ${microsoft ? "Outlook" : "Google"} failed for ${f.calendarName ?? f.calendarId}.`,
    fields: [
      { label: "Calendar", value: f.calendarId },
      { label: "Error", value: f.error ?? "unknown error" },
      { label: "Since", value: utc(f.at) },
    ],
    note: null,
    link: microsoft ? { url: `${origin}/microsoft`, label: "Open Microsoft 365 sync" } : { url: `${origin}/google`, label: "Open Google Calendar sync" },
    footer: `It is retried with backoff; the sync status is on the ${microsoft ? "Microsoft 365" : "Google Calendar"} page.`,
    evidence: null,
  };
}

export type ReconciliationFacts = {
  type: "event.moved_externally" | "event.cancelled_externally" | "event.conflicted";
  eventId: string;
  title: string | null;
  calendarId: string;
  calendarName: string | null;
  agentName: string | null;
  provider: "google" | "microsoft";
  /** The reconciliation as it stands now (it may have changed since the message was queued). */
  state: "moved_externally" | "cancelled_externally" | "conflicted" | "in_sync";
  start: Date;
  end: Date;
  providerStatus: "confirmed" | "cancelled" | "declined";
  providerStart: Date | null;
  providerEnd: Date | null;
  changedBy: string | null;
  conflicts: number;
  eventStatus: "confirmed" | "cancelled";
};

const RECONCILIATION: Record<ReconciliationFacts["type"], { title: string; tone: NoticeTone }> = {
  "event.moved_externally": { title: "Meeting moved by a person", tone: "amber" },
  "event.cancelled_externally": { title: "Meeting deleted or declined by a person", tone: "red" },
  "event.conflicted": { title: "Meeting double-booked", tone: "amber" },
};

const NOW: Record<ReconciliationFacts["state"], string> = {
  moved_externally: "moved (needs attention)",
  cancelled_externally: "deleted or declined (needs attention)",
  conflicted: "double-booked (needs attention)",
  in_sync: "back in sync (nothing to do)",
};

/** A person changed a meeting AgentDraft committed, in Google Calendar or Outlook (issue #32): what AgentDraft has beside what the provider now says. */
export function reconciliationNotice(f: ReconciliationFacts, origin: string): Notice {
  const product = f.provider === "microsoft" ? "Outlook" : "Google Calendar";
  const what = f.title ? `“${f.title}”` : "A meeting";
  const span = (a: Date, b: Date) => `${utc(a)} – ${utc(b)}`;
  const summary =
    f.type === "event.moved_externally"
      ? `${what} on ${f.calendarName ?? f.calendarId} was moved in ${product}.`
      : f.type === "event.cancelled_externally"
        ? `${what} on ${f.calendarName ?? f.calendarId} was ${f.providerStatus === "declined" ? "declined by all its attendees" : "deleted"} in ${product}.`
        : `Something else now overlaps ${f.title ? `“${f.title}”` : "a meeting"} on ${f.calendarName ?? f.calendarId} in ${product}.`;
  const fields: Notice["fields"] = [
    { label: "AgentDraft", value: span(f.start, f.end) },
    { label: product, value: f.providerStatus === "cancelled" ? "deleted" : f.providerStart && f.providerEnd ? `${span(f.providerStart, f.providerEnd)}${f.providerStatus === "declined" ? " (declined)" : ""}` : f.providerStatus },
  ];
  if (f.conflicts) fields.push({ label: "Overlaps", value: `${f.conflicts} other commitment${f.conflicts === 1 ? "" : "s"}` });
  if (f.changedBy) fields.push({ label: "Organizer", value: f.changedBy });
  if (f.agentName) fields.push({ label: "Agent", value: f.agentName });
  fields.push({ label: "Now", value: f.eventStatus === "cancelled" ? "no longer committed in AgentDraft" : NOW[f.state] });
  return {
    type: f.type,
    title: RECONCILIATION[f.type].title,
    tone: RECONCILIATION[f.type].tone,
    summary,
    fields,
    note: null,
    link: { url: `${origin}/calendars/${f.calendarId}`, label: "Open the calendar" },
    footer: "AgentDraft moved nothing back. The agent can re-book the meeting (rebooks_event_id), or a person can put it back where it was.",
    evidence: null,
  };
}

export function testNotice(channelName: string, origin: string, at: Date): Notice {
  return {
    type: "test",
    title: "Test message from AgentDraft",
    tone: "slate",
    summary: `This channel (${channelName}) is connected. Approval requests and alerts will appear here.`,
    fields: [{ label: "Sent", value: utc(at) }],
    note: null,
    link: { url: `${origin}/channels`, label: "Open notification channels" },
    footer: DECIDED_SIGNED_IN,
    evidence: null,
  };
}
