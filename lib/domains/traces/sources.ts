import { and, eq, inArray, or } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { approvals, holds, inboxes, leases, messages } from "../../../db/schema";
import { serializeHold } from "../holds";
import { serializeLease } from "../leases";
import type { TraceItem, TraceSource } from "./trace-item";

const nonEmpty = (ids: string[]) => (ids.length ? ids : ["-"]);

/** Mail sent or received under the trace (its trace_id), or that its audit entries name. */
const mailSource: TraceSource = {
  kind: "message",
  async collect(ctx) {
    const q = await queryable();
    const rows = await q
      .select({ m: messages, agentId: inboxes.agentId })
      .from(messages)
      .innerJoin(inboxes, eq(inboxes.id, messages.inboxId))
      .where(and(eq(messages.workspaceId, ctx.workspaceId), or(inArray(messages.traceId, nonEmpty(ctx.traceIds)), inArray(messages.id, nonEmpty(ctx.referenced("message"))))))
      .limit(ctx.limit);
    return rows.map(({ m, agentId }): TraceItem => ({
      kind: "message",
      id: m.id,
      at: m.createdAt.toISOString(),
      agent_id: agentId,
      title: `${m.direction === "inbound" ? "Mail received" : "Mail sent"}: ${m.subject || "(no subject)"}`,
      status: m.status,
      data: { inbox_id: m.inboxId, thread_id: m.threadId, direction: m.direction, from: m.from, to: m.to, subject: m.subject },
    }));
  },
};

/** Holds the trace's audit entries name (holds carry no trace column; their entries do). */
const holdSource: TraceSource = {
  kind: "hold",
  async collect(ctx) {
    const ids = ctx.referenced("hold");
    if (!ids.length) return [];
    const q = await queryable();
    const rows = await q.select().from(holds).where(and(eq(holds.workspaceId, ctx.workspaceId), inArray(holds.id, ids))).limit(ctx.limit);
    return rows.map((h): TraceItem => {
      const s = serializeHold(h);
      return { kind: "hold", id: h.id, at: s.created_at, agent_id: h.agentId, title: `Hold on ${h.calendarIds.join(", ")}`, status: s.status, data: s };
    });
  },
};

/** Leases the trace's audit entries name (taken, renewed, released or expired under it; leases carry no trace column). */
const leaseSource: TraceSource = {
  kind: "lease",
  async collect(ctx) {
    const ids = ctx.referenced("lease");
    if (!ids.length) return [];
    const q = await queryable();
    const rows = await q.select().from(leases).where(and(eq(leases.workspaceId, ctx.workspaceId), inArray(leases.id, ids))).limit(ctx.limit);
    return rows.map((l): TraceItem => {
      const s = serializeLease(l);
      return { kind: "lease", id: l.id, at: s.created_at, agent_id: l.agentId, title: `Lease on ${l.resource}`, status: s.status, data: s };
    });
  },
};

/** Approvals requested under the trace, or that its audit entries name. */
const approvalSource: TraceSource = {
  kind: "approval",
  async collect(ctx) {
    const q = await queryable();
    const rows = await q
      .select()
      .from(approvals)
      .where(and(eq(approvals.workspaceId, ctx.workspaceId), or(inArray(approvals.traceId, nonEmpty(ctx.traceIds)), inArray(approvals.id, nonEmpty(ctx.referenced("approval"))))))
      .limit(ctx.limit);
    return rows.map((a): TraceItem => ({
      kind: "approval",
      id: a.id,
      at: a.createdAt.toISOString(),
      agent_id: a.agentId,
      title: `Approval: ${a.summary.slice(0, 120)}`,
      status: a.status,
      data: { summary: a.summary, status: a.status, action_class: a.actionClass, required_approvals: a.requiredApprovals, decided_at: a.decidedAt?.toISOString() ?? null },
    }));
  },
};

/** Every source beside handoffs and audit entries; a new kind of record joins traces by adding its source here. */
export const TRACE_SOURCES: TraceSource[] = [mailSource, holdSource, leaseSource, approvalSource];
