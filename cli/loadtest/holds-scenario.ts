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
};

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
        priority: Math.floor(Math.random() * 101),
        hold_ttl_seconds: 30,
      });
      if (placed.status === 201) {
        const next = Math.random() < s.commitShare ? "commit" : "release";
        await post(`/api/v1/holds/${placed.json.id}/${next}`);
        return "granted";
      }
      return placed.json.code ?? String(placed.status);
    });
  } finally {
    client.close();
  }
}
