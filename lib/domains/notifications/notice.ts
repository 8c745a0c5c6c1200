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
