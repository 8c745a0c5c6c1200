import { and, eq, inArray } from "drizzle-orm";
import { expect } from "vitest";
import { getDb } from "../../db/client";
import { calendarEvents, calendarOrphans, eventReconciliations, googleEventExports } from "../../db/schema";
import { checkLinkDrift } from "../../lib/domains/calendar-sync/drift";
import { syncLink } from "../../lib/domains/calendar-sync/sync-link";
import { overlappingBusy } from "./calendar-invariants";
import { newKey } from "./fixtures";
import { mulberry32 } from "./seeded-random";

/** A provider event as the simulated person sees it in their calendar. */
export type LiveEvent = { id: string; tag: string | null; start: Date; end: Date };

/** What the randomized test needs of a provider's fake: the person's hand on the calendar, and the export job. */
export type ChaosProvider = {
  name: string;
  workspaceId: string;
  calendarId: string;
  linkId: string;
  live(): LiveEvent[];
  move(id: string, start: Date, end: Date): void;
  remove(id: string): void;
  /** Every attendee but the owner declines. */
  decline(id: string): void;
  /** The provider loses the event outright (no trace of it left), where the fake can. */
  lose?(id: string): void;
  /** The change feed breaks: the next sync is a full one. */
  expireToken(): void;
  runExports(): Promise<unknown>;
};

type Api = (path: string, init?: { key?: string; method?: string; body?: unknown }) => Promise<{ status: number; json: any }>;

/**
 * The randomized test of issue #32 (seeded; the seed is printed and replays the choices): agents
 * place, commit, re-book and cancel events while a simulated person moves, deletes and declines
 * them at the provider's fake (and the provider loses some), with syncs, exports and drift checks
 * running concurrently. At the end, after the drift check and a final sync, AgentDraft and the
 * provider agree.
 */
export async function runDriftChaos(p: ChaosProvider, api: Api, o: { seedEnv: string; day: Date; rounds?: number }) {
  const seed = Number(process.env[o.seedEnv] ?? Date.now() % 100_000);
  const random = mulberry32(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  console.log(`randomized drift run (${p.name}), seed ${seed} (${o.seedEnv}=${seed} reproduces the choices)`);

  const keys = await Promise.all(Array.from({ length: 4 }, () => newKey(p.workspaceId).then((k) => k.key)));
  // Twelve half-hour slots on one day: few enough that agents, re-bookings and the person collide.
  const slot = (i: number) => ({ start: new Date(o.day.getTime() + i * 1_800_000), end: new Date(o.day.getTime() + (i + 1) * 1_800_000) });
  const statuses = new Map<string, number>();
  const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
  const db = await getDb();
  const confirmed = async () =>
    (await db.select({ id: calendarEvents.id }).from(calendarEvents).where(and(eq(calendarEvents.calendarId, p.calendarId), eq(calendarEvents.status, "confirmed")))).map((r) => r.id);

  const agentOp = async (key: string) => {
    const roll = random();
    const s = slot(Math.floor(random() * 12));
    const events = await confirmed();
    if (roll < 0.5 || !events.length) {
      const hold = await api(`/api/v1/calendars/${p.calendarId}/holds`, { key, body: { start_time: s.start.toISOString(), end_time: s.end.toISOString(), hold_ttl_seconds: 60 } });
      count(`place ${hold.status}`);
      if (hold.status === 201) count(`commit ${(await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" })).status}`);
    } else if (roll < 0.85) {
      const old = pick(events);
      const hold = await api(`/api/v1/calendars/${p.calendarId}/holds`, { key, body: { start_time: s.start.toISOString(), end_time: s.end.toISOString(), hold_ttl_seconds: 60, rebooks_event_id: old } });
      count(`rebook ${hold.status}`);
      if (hold.status === 201) count(`rebook-commit ${(await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" })).status}`);
    } else {
      count(`cancel ${(await api(`/api/v1/events/${pick(events)}`, { key, method: "DELETE" })).status}`);
    }
  };

  const personOp = () => {
    const ours = p.live().filter((e) => e.tag);
    if (!ours.length) return;
    const ev = pick(ours);
    const roll = random();
    if (roll < 0.45) {
      const s = slot(Math.floor(random() * 12));
      p.move(ev.id, s.start, s.end);
      count("person moved");
    } else if (roll < 0.7) {
      p.remove(ev.id);
      count("person deleted");
    } else if (roll < 0.85) {
      p.decline(ev.id);
      count("person declined");
    } else if (p.lose) {
      p.lose(ev.id);
      count("provider lost");
    }
  };

  const syncOp = async () => {
    const roll = random();
    if (roll < 0.1) {
      p.expireToken();
      count("token expired");
    }
    if (roll < 0.5) await syncLink(p.linkId);
    else if (roll < 0.85) await p.runExports();
    else await checkLinkDrift(p.linkId, { force: true });
  };

  await syncLink(p.linkId);
  const rounds = o.rounds ?? 25;
  for (let round = 0; round < rounds; round++) {
    const ops: Promise<unknown>[] = [];
    for (const key of keys) if (random() < 0.7) ops.push(agentOp(key));
    if (random() < 0.6) personOp();
    ops.push(syncOp(), syncOp());
    await Promise.all(ops);
    if (random() < 0.5) personOp();
  }

  // Settle: exports done, then the drift check and a final sync, until nothing is pending.
  for (let i = 0; i < 6; i++) {
    await p.runExports();
    await syncLink(p.linkId);
    await checkLinkDrift(p.linkId, { force: true });
    await p.runExports();
    await syncLink(p.linkId);
    const pending = await db.select().from(googleEventExports).where(and(eq(googleEventExports.linkId, p.linkId), inArray(googleEventExports.status, ["pending", "failed"])));
    if (!pending.length) break;
  }
  console.log(`drift run (${p.name}) seed ${seed}: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);

  const problems = await disagreements(p);
  expect(problems, `seed ${seed} (${o.seedEnv}=${seed})`).toEqual([]);
  return { seed, statuses };
}

/** Where AgentDraft and the provider disagree after settling (empty when they agree). */
async function disagreements(p: ChaosProvider): Promise<string[]> {
  const db = await getDb();
  const out: string[] = [];
  // No double booking in AgentDraft.
  for (const o of await overlappingBusy(p.workspaceId)) out.push(`double booked: ${o.a} and ${o.b}`);

  const events = await db.select().from(calendarEvents).where(eq(calendarEvents.calendarId, p.calendarId));
  const exports = await db.select().from(googleEventExports).where(eq(googleEventExports.linkId, p.linkId));
  const recs = new Map((await db.select().from(eventReconciliations).where(eq(eventReconciliations.linkId, p.linkId))).map((r) => [r.calendarEventId, r]));
  const orphans = new Set((await db.select().from(calendarOrphans).where(eq(calendarOrphans.linkId, p.linkId))).map((o) => o.providerEventId));
  const live = p.live();
  const exportOf = new Map(exports.map((x) => [x.calendarEventId, x]));
  for (const x of exports) if (x.status !== "exported" && x.status !== "deleted") out.push(`export ${x.id} of ${x.calendarEventId} still ${x.status} (${x.lastError ?? ""})`);

  // Every confirmed event with an export: exactly one provider event, at its time (or where the
  // reconciliation says the person put it; none when it says they deleted it).
  for (const ev of events.filter((e) => e.status === "confirmed")) {
    const x = exportOf.get(ev.id);
    if (!x) continue;
    if (x.desired !== "present") out.push(`${ev.id} confirmed but its export wants it absent`);
    const copies = live.filter((e) => e.id === x.googleEventId || e.tag === ev.id);
    const rec = recs.get(ev.id);
    const state = rec?.state ?? "in_sync";
    if (state === "cancelled_externally" && rec!.providerStatus === "cancelled") {
      if (copies.length) out.push(`${ev.id} recorded deleted at the provider, but ${copies.map((c) => c.id).join(", ")} is there`);
      continue;
    }
    if (copies.length !== 1) {
      out.push(`${ev.id} (${state}) has ${copies.length} provider events: ${copies.map((c) => c.id).join(", ") || "none"}`);
      continue;
    }
    const [copy] = copies;
    if (copy!.id !== x.googleEventId) out.push(`${ev.id}'s provider event is ${copy!.id}, its export says ${x.googleEventId}`);
    if (copy!.tag !== ev.id) out.push(`${ev.id}'s provider event is tagged ${copy!.tag}`);
    // Where the reconciliation last saw it (a person's move, a declined event moved too), else AgentDraft's time.
    const [start, end] = rec?.providerStart ? [rec.providerStart, rec.providerEnd] : [ev.startTime, ev.endTime];
    if ((state === "in_sync" || state === "conflicted") && rec?.providerStart && (rec.providerStart.getTime() !== ev.startTime.getTime() || rec.providerEnd?.getTime() !== ev.endTime.getTime())) {
      out.push(`${ev.id} is ${state} but the provider's recorded time differs from AgentDraft's`);
    }
    if (copy!.start.getTime() !== start?.getTime() || copy!.end.getTime() !== end?.getTime()) {
      out.push(`${ev.id} (${state}) is at ${start?.toISOString()}–${end?.toISOString()} for AgentDraft, ${copy!.start.toISOString()}–${copy!.end.toISOString()} at the provider`);
    }
  }

  // No provider event tagged as AgentDraft's without a live AgentDraft event behind it (unless reported as an orphan).
  const confirmedIds = new Set(events.filter((e) => e.status === "confirmed").map((e) => e.id));
  const byRemote = new Map(exports.map((x) => [x.googleEventId, x]));
  for (const e of live.filter((l) => l.tag)) {
    const x = byRemote.get(e.id);
    const ok = x && x.desired === "present" && confirmedIds.has(x.calendarEventId) && x.calendarEventId === e.tag;
    if (!ok && !orphans.has(e.id)) out.push(`provider event ${e.id} tagged ${e.tag} has no live AgentDraft event (${x ? `${x.calendarEventId} ${x.desired} ${x.status}` : "no export"})`);
    if (!ok && orphans.has(e.id)) out.push(`provider event ${e.id} tagged ${e.tag} was reported as an orphan: none should arise from these operations`);
  }
  return out;
}
