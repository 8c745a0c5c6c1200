import { and, asc, eq } from "drizzle-orm";
import type { Queryable } from "../../../db/client";
import {
  agents,
  approvalDecisions,
  approvals,
  calendarEvents,
  calendars,
  eventReconciliations,
  googleCalendarLinks,
  googleConnections,
  googleEventExports,
  members,
  webhookEndpoints,
  type NotificationChannelRow,
  type NotificationMessageRow,
} from "../../../db/schema";
import { approvalNotice, endpointDisabledNotice, reconciliationNotice, syncFailedNotice, type Notice } from "./notice";
import { publicOrigin } from "../../platform/config/public-url";

/** The web app's origin for links in messages (jobs have no request to read it from): the deployment's public URL. */
export const appOrigin = (): string => publicOrigin();

/**
 * Reads what a message tells of as it is now (the queue holds only its id), or null when the
 * subject is gone. Evidence is read only when the channel shows it.
 */
export async function loadNotice(q: Queryable, m: NotificationMessageRow, channel: NotificationChannelRow, now: Date): Promise<Notice | null> {
  const origin = appOrigin();
  const ws = m.workspaceId;
  if (m.type.startsWith("approval.")) {
    const [a] = await q
      .select({ approval: approvals, agentName: agents.name })
      .from(approvals)
      .leftJoin(agents, eq(agents.id, approvals.agentId))
      .where(and(eq(approvals.id, m.subjectId), eq(approvals.workspaceId, ws)));
    if (!a) return null;
    const decisions = await q
      .select({ memberId: approvalDecisions.memberId, note: approvalDecisions.note, name: members.name, email: members.email })
      .from(approvalDecisions)
      .leftJoin(members, eq(members.id, approvalDecisions.memberId))
      .where(eq(approvalDecisions.approvalId, a.approval.id))
      .orderBy(asc(approvalDecisions.createdAt), asc(approvalDecisions.id));
    const r = a.approval;
    return approvalNotice(
      {
        id: r.id,
        summary: r.summary,
        status: r.status,
        escalated: r.escalatedAt !== null,
        agentName: a.agentName,
        actionClass: r.actionClass,
        amount: r.amount,
        currency: r.currency,
        createdAt: r.createdAt,
        expiresAt: r.expiresAt,
        decidedAt: r.decidedAt,
        decidedBy: decisions.map((d) => d.name || d.email || d.memberId),
        note: decisions.at(-1)?.note ?? null,
        evidence: channel.includeEvidence ? r.evidence : null,
      },
      { origin, now, includeEvidence: channel.includeEvidence },
    );
  }
  if (m.type === "webhook_endpoint.disabled") {
    const [e] = await q.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, m.subjectId), eq(webhookEndpoints.workspaceId, ws)));
    return e ? endpointDisabledNotice({ id: e.id, url: e.url, reason: e.disabledReason, disabledAt: e.disabledAt }, origin) : null;
  }
  if (m.type === "calendar.sync_failed") {
    const [link] = await q
      .select({ calendarId: googleCalendarLinks.calendarId, error: googleCalendarLinks.lastSyncError, at: googleCalendarLinks.updatedAt, name: calendars.name, provider: googleConnections.provider })
      .from(googleCalendarLinks)
      .leftJoin(calendars, eq(calendars.id, googleCalendarLinks.calendarId))
      .leftJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
      .where(and(eq(googleCalendarLinks.id, m.subjectId), eq(googleCalendarLinks.workspaceId, ws)));
    if (link) return syncFailedNotice({ calendarId: link.calendarId, calendarName: link.name, direction: "import", error: link.error, at: link.at, provider: link.provider ?? "google" }, origin);
    const [exp] = await q
      .select({ calendarId: googleEventExports.calendarId, error: googleEventExports.lastError, at: googleEventExports.updatedAt, name: calendars.name, provider: googleConnections.provider })
      .from(googleEventExports)
      .leftJoin(calendars, eq(calendars.id, googleEventExports.calendarId))
      .leftJoin(googleCalendarLinks, eq(googleCalendarLinks.id, googleEventExports.linkId))
      .leftJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
      .where(and(eq(googleEventExports.id, m.subjectId), eq(googleEventExports.workspaceId, ws)));
    return exp ? syncFailedNotice({ calendarId: exp.calendarId, calendarName: exp.name, direction: "export", error: exp.error, at: exp.at, provider: exp.provider ?? "google" }, origin) : null;
  }
  if (m.type === "event.moved_externally" || m.type === "event.cancelled_externally" || m.type === "event.conflicted") {
    const [r] = await q
      .select({ rec: eventReconciliations, event: calendarEvents, calendarName: calendars.name, agentName: agents.name })
      .from(eventReconciliations)
      .innerJoin(calendarEvents, eq(calendarEvents.id, eventReconciliations.calendarEventId))
      .leftJoin(calendars, eq(calendars.id, calendarEvents.calendarId))
      .leftJoin(agents, eq(agents.id, calendarEvents.agentId))
      .where(and(eq(eventReconciliations.calendarEventId, m.subjectId), eq(eventReconciliations.workspaceId, ws)));
    if (!r) return null;
    return reconciliationNotice(
      {
        type: m.type,
        eventId: r.event.id,
        title: typeof r.event.metadata.title === "string" ? r.event.metadata.title.slice(0, 200) : null,
        calendarId: r.event.calendarId,
        calendarName: r.calendarName,
        agentName: r.agentName,
        provider: r.rec.provider,
        state: r.rec.state,
        start: r.event.startTime,
        end: r.event.endTime,
        providerStatus: r.rec.providerStatus,
        providerStart: r.rec.providerStart,
        providerEnd: r.rec.providerEnd,
        changedBy: r.rec.providerChangedBy,
        conflicts: r.rec.conflicts.length,
        eventStatus: r.event.status,
      },
      origin,
    );
  }
  return null;
}
