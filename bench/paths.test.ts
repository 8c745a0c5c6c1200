import { describe, expect, it } from "vitest";
import { argvForPath, atLeast, metLabel, normalisedRatio, parseDbPaths, reproduceCommand } from "./paths";
import { splitFor } from "./cores";
import { holdPathRatios, type HoldsResults } from "./holds-paths";
import { apiPathRatios, type ApiResults } from "./api-paths";
import type { Summary } from "../cli/loadtest/stats";

const summary = (per_second: number, p99_ms = 100): Summary => ({ requests: per_second, seconds: 1, per_second, p50_ms: 10, p95_ms: 50, p99_ms, outcomes: {} });

describe("parseDbPaths", () => {
  it("defaults to the embedded database", () => {
    expect(parseDbPaths(["node", "bench/holds.ts"])).toEqual(["pglite"]);
  });
  it("reads one path or several, in order, without repeats", () => {
    expect(parseDbPaths(["--db", "postgres"])).toEqual(["postgres"]);
    expect(parseDbPaths(["--rtt-ms", "1", "--db", "postgres, pooled,neon,pooled"])).toEqual(["postgres", "pooled", "neon"]);
  });
  it("refuses an unknown path, naming it and the known ones", () => {
    expect(() => parseDbPaths(["--db", "postgres,mysql"])).toThrow(/unknown database path "mysql".*known: pglite, postgres/);
  });
  it("refuses a missing value", () => {
    expect(() => parseDbPaths(["--db"])).toThrow(/--db needs a value/);
    expect(() => parseDbPaths(["--db", "--rtt-ms", "1"])).toThrow(/--db needs a value/);
    expect(() => parseDbPaths(["--db", ","])).toThrow(/--db needs a value/);
  });
});

describe("argvForPath", () => {
  it("gives each path's run its own --db and keeps the other flags", () => {
    expect(argvForPath(["--db", "postgres,neon", "--rtt-ms", "2"], "neon")).toEqual(["--rtt-ms", "2", "--db", "neon"]);
    expect(argvForPath(["--no-fresh"], "pooled")).toEqual(["--no-fresh", "--db", "pooled"]);
  });
});

describe("reproduceCommand", () => {
  it("passes flags after --, and none when there are none", () => {
    expect(reproduceCommand("bench:api", [])).toBe("npm run bench:api");
    expect(reproduceCommand("bench:api", ["--server-core"])).toBe("npm run bench:api -- --server-core");
    expect(reproduceCommand("bench:holds", ["--db", "postgres", "--rtt-ms", "1", "--no-fresh"])).toBe("npm run bench:holds -- --db postgres --rtt-ms 1 --no-fresh");
  });
});

describe("splitFor (--server-core)", () => {
  it("gives the server core 0 and the rest every other core", () => {
    expect(splitFor(2)).toEqual({ server: "0", rest: "1" });
    expect(splitFor(8)).toEqual({ server: "0", rest: "1-7" });
  });
  it("refuses a one-core machine, saying to run without the flag", () => {
    expect(() => splitFor(1)).toThrow(/needs at least 2 cores; this machine has 1\. Run without it\./);
  });
});

describe("atLeast", () => {
  it("decides on the unrounded value", () => {
    const r = atLeast("x", 0.7996, 1, 0.8);
    expect(r.value).toBe(0.8);
    expect(r.met).toBe(false);
    expect(metLabel(r)).toBe("NO");
    expect(metLabel(atLeast("x", 3, 4, 0.75))).toBe("yes");
  });
  it("states a ratio without a target, and never calls a missing one met", () => {
    expect(atLeast("x", 1, 2, null)).toMatchObject({ value: 0.5, target: "stated", met: null });
    expect(metLabel(atLeast("x", 1, 2, null))).toBe("—");
    expect(metLabel(atLeast("x", undefined, 2, 0.8))).toBe("not measured");
    expect(metLabel(atLeast("x", 1, 0, 0.8))).toBe("not measured");
  });
});

describe("normalisedRatio", () => {
  it("divides each side by its own bare route first", () => {
    // Pooled ran while the machine was half as fast: 100 of 500 bare against 200 of 1000 is par.
    expect(normalisedRatio(100, 500, 200, 1000)).toBeCloseTo(1);
    expect(normalisedRatio(80, 1000, 200, 1000)).toBeCloseTo(0.4);
    expect(normalisedRatio(80, undefined, 200, 1000)).toBeUndefined();
    expect(normalisedRatio(80, 0, 200, 1000)).toBeUndefined();
  });
});

const holds = (database: HoldsResults["database"], rate200: number, grants: number, bare: number): HoldsResults => ({
  database,
  rtt_ms: 1,
  agents: 50,
  seconds: 10,
  bare_route: { "200 calendars": { before: summary(bare), after: summary(bare) }, "hot calendar, contended": { before: summary(bare), after: summary(bare) } },
  statements: { "place hold": 1 },
  rows: [
    { layer: "HTTP (next start), 0 ms each way", scenario: "200 calendars", summary: summary(rate200), holds_per_s: rate200 / 2, double_bookings: 0 },
    { layer: "HTTP (next start), 0 ms each way", scenario: "hot calendar, contended", summary: summary(grants * 1.1), holds_per_s: grants, double_bookings: 0 },
    { layer: "HTTP (next start), 1 ms each way", scenario: "200 calendars", summary: summary(rate200 * 0.9), holds_per_s: 0, double_bookings: 0 },
    { layer: "HTTP (next start), 1 ms each way", scenario: "hot calendar, contended", summary: summary(grants), holds_per_s: grants * 0.5, double_bookings: 0 },
  ],
});

describe("holdPathRatios", () => {
  it("holds pooled to 0.8 of direct on 200 calendars, after each side's bare route, and states the rest", () => {
    const ratios = holdPathRatios([
      { path: "postgres", results: holds("postgres", 250, 100, 1000) },
      { path: "pooled", results: holds("pooled", 180, 90, 900) }, // 0.2 of its bare vs 0.25: 0.8
      { path: "neon", results: holds("neon", 100, 50, 1000) },
    ]);
    const pooled200 = ratios.find((r) => r.ratio.startsWith("pooled ÷ postgres: 200 calendars, attempts/s, 0 ms"))!;
    expect(pooled200).toMatchObject({ value: 0.8, target: "≥ 0.8", met: true, note: "raw 0.72" });
    const pooledContended = ratios.find((r) => r.ratio.startsWith("pooled ÷ postgres: hot calendar, contended, grants/s, 0 ms"))!;
    expect(pooledContended).toMatchObject({ value: 1, target: "stated", met: null });
    const neon200 = ratios.find((r) => r.ratio.startsWith("neon ÷ postgres: 200 calendars, attempts/s, 0 ms"))!;
    expect(neon200).toMatchObject({ value: 0.4, target: "stated", met: null });
    const neonFar = ratios.find((r) => r.ratio === "neon ÷ postgres: hot calendar, contended, grants/s, 1 ms each way (raw)")!;
    expect(neonFar.value).toBe(0.5);
    expect(ratios).toHaveLength(8);
  });
  it("has nothing to divide by without the direct path", () => {
    expect(holdPathRatios([{ path: "pooled", results: holds("pooled", 1, 1, 1) }])).toEqual([]);
  });
});

describe("apiPathRatios", () => {
  const api = (database: ApiResults["database"], bare: number, me: number, post: number): ApiResults => ({
    database,
    results: [
      { target: "bare route (GET /api/ping)", clients: 50, summary: summary(bare) },
      { target: "authenticated GET /api/v1/me", clients: 50, summary: summary(me) },
      { target: "idempotent POST /api/v1/calendars", clients: 50, summary: summary(post) },
    ],
  });
  it("divides each target by its own bare route, then by the direct path's", () => {
    const ratios = apiPathRatios([
      { path: "postgres", results: api("postgres", 1000, 800, 400) },
      { path: "pooled", results: api("pooled", 1000, 600, 380) },
    ]);
    expect(ratios.map((r) => [r.value, r.met])).toEqual([
      [0.75, false],
      [0.95, true],
    ]);
  });
});
