import { createCalendars, grantsIn, runHoldsScenario } from "./loadtest/holds-scenario";
import { table } from "./loadtest/stats";
import { UsageError } from "./errors";
import type { Command } from "./command";

const USAGE =
  "agentdraft loadtest --url URL --key API_KEY [--agents 50] [--seconds 10] [--calendars 20 | --calendar CAL_ID[,CAL_ID...]] [--slots 16] [--commit-share 0.5]";

function positive(flags: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new UsageError(`--${name} must be a number between 0 and ${max}. Usage: ${USAGE}`);
  return n;
}

/** Stress a deployment's conflict engine: N agents placing, committing and releasing holds over HTTP. */
export const loadtestCommand: Command = {
  usage: USAGE,
  summary: "Run N concurrent agents against a deployment's hold API and report rates and latencies.",
  needsSchema: false,
  flags: { url: "string", key: "string", agents: "string", seconds: "string", calendars: "string", calendar: "string", slots: "string", "commit-share": "string" },
  run: async (flags) => {
    const url = typeof flags.url === "string" ? flags.url.replace(/\/$/, "") : "";
    const key = typeof flags.key === "string" ? flags.key : "";
    if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`--url must be the deployment's base URL, e.g. http://localhost:3000. Usage: ${USAGE}`);
    if (!key.startsWith("ad_")) throw new UsageError(`--key must be an AgentDraft API key with the calendar scope. Usage: ${USAGE}`);
    const agents = Math.round(positive(flags, "agents", 50, 1000));
    const seconds = positive(flags, "seconds", 10, 3600);
    const slots = Math.round(positive(flags, "slots", 16, 1000));
    const commitShare = flags["commit-share"] === undefined ? 0.5 : Number(flags["commit-share"]);
    if (!(commitShare >= 0 && commitShare <= 1)) throw new UsageError(`--commit-share must be between 0 and 1. Usage: ${USAGE}`);

    const me = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } }).catch((err: Error) => {
      throw new UsageError(`Cannot reach ${url}: ${err.message}.`);
    });
    if (me.status !== 200) throw new UsageError(`${url} refused the key (HTTP ${me.status}). Check --key.`);

    const calendarIds =
      typeof flags.calendar === "string"
        ? flags.calendar.split(",").map((s) => s.trim()).filter(Boolean)
        : await createCalendars(url, key, Math.round(positive(flags, "calendars", 20, 10_000)), `loadtest-${Date.now()}`);

    process.stderr.write(`loadtest: ${agents} agents, ${seconds} s, ${calendarIds.length} calendars × ${slots} slots against ${url}\n`);
    const summary = await runHoldsScenario(
      { url, key, calendarIds, slots, commitShare },
      {
        concurrency: agents,
        seconds,
        onProgress: (done, elapsed, outcomes) =>
          process.stderr.write(
            `\r  ${elapsed.toFixed(0).padStart(4)} s  ${done} attempts  ${Math.round(done / elapsed)}/s  granted ${grantsIn(outcomes)}  conflicts ${outcomes.hold_conflict ?? 0}   `,
          ),
      },
    );
    process.stderr.write("\n");
    const granted = grantsIn(summary.outcomes);
    const row = {
      "attempts/s": summary.per_second,
      "holds/s": Math.round((granted / summary.seconds) * 10) / 10,
      "p50 ms": summary.p50_ms,
      "p95 ms": summary.p95_ms,
      "p99 ms": summary.p99_ms,
      granted,
      conflicts: summary.outcomes.hold_conflict ?? 0,
      other: Object.entries(summary.outcomes)
        .filter(([k]) => k !== "granted" && k !== "hold_conflict")
        .map(([k, v]) => `${k}:${v}`)
        .join(" ") || "-",
    };
    return {
      json: { url, agents, seconds, calendars: calendarIds.length, slots, summary },
      human: ["", table([row]), "", "Latency covers placing a hold and then committing or releasing it."],
    };
  },
};
