import { httpClient } from "./http-client";
import { runLoad, type LoadOptions } from "./run-load";
import type { Summary } from "./stats";

export type HoldsScenario = {
  url: string;
  key: string;
  calendarIds: string[];
  /** Bookable slots per calendar (30 minutes each, on one day far in the future). */
  slots: number;
  /** Of the holds granted, the share committed (the rest are released). */
  commitShare: number;
  /** Every placement at this priority (none preempts another); unset: a random priority 0–100. */
  priority?: number;
};

/**
 * An attempt's outcome: the placement's refusal code ("hold_conflict"…), or, once granted,
 * "granted" when the commit or release that follows it succeeded, and "granted_then_<code>" when
 * it did not (a hold preempted before its agent could commit it). Either way a grant.
 */
export function attemptOutcome(placed: { status: number; code?: string }, followUp?: { status: number; code?: string }): string {
  if (placed.status !== 201) return placed.code ?? String(placed.status);
  if (!followUp || followUp.status === 200) return "granted";
  return `granted_then_${followUp.code ?? followUp.status}`;
}

/** Grants among a run's outcomes (attemptOutcome's "granted" and "granted_then_…"). */
export function grantsIn(outcomes: Record<string, number>): number {
  return Object.entries(outcomes).reduce((n, [k, v]) => (k === "granted" || k.startsWith("granted_then_") ? n + v : n), 0);
}

const SLOT_MS = 30 * 60 * 1000;
const DAY = Date.UTC(2035, 5, 1, 6);

/** Creates `count` calendars through the API and returns their ids. */
export async function createCalendars(url: string, key: string, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/api/v1/calendars`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `${prefix}-${i}` }),
    });
    if (res.status !== 201) throw new Error(`creating a calendar failed: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

/**
 * Agents placing holds over HTTP: each attempt picks a calendar, a slot and a priority; a
 * granted hold is then committed or released. The outcome is the placement's answer.
 */
export async function runHoldsScenario(s: HoldsScenario, load: LoadOptions): Promise<Summary> {
  const client = httpClient(load.concurrency);
  const headers = { authorization: `Bearer ${s.key}`, "content-type": "application/json" };
  const post = async (path: string, body?: unknown) => {
    const res = await client.request(`${s.url}${path}`, { method: "POST", headers, body: JSON.stringify(body ?? {}) });
    let json: { id?: string; code?: string } = {};
    try {
      json = JSON.parse(res.body);
    } catch {
      /* not JSON: the status says enough */
    }
    return { status: res.status, json };
  };
  try {
    return await runLoad(load, async () => {
      const calendar = s.calendarIds[Math.floor(Math.random() * s.calendarIds.length)]!;
      const slot = Math.floor(Math.random() * s.slots);
      const start = DAY + slot * SLOT_MS;
      const placed = await post(`/api/v1/calendars/${calendar}/holds`, {
        start_time: new Date(start).toISOString(),
        end_time: new Date(start + SLOT_MS).toISOString(),
        priority: s.priority ?? Math.floor(Math.random() * 101),
        hold_ttl_seconds: 30,
      });
      if (placed.status !== 201) return attemptOutcome({ status: placed.status, code: placed.json.code });
      const next = Math.random() < s.commitShare ? "commit" : "release";
      const followUp = await post(`/api/v1/holds/${placed.json.id}/${next}`);
      return attemptOutcome({ status: 201 }, { status: followUp.status, code: followUp.json.code });
    });
  } finally {
    client.close();
  }
}
