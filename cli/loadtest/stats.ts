/** Latency percentiles (nearest-rank) over milliseconds. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export type Summary = {
  requests: number;
  seconds: number;
  per_second: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  outcomes: Record<string, number>;
};

export function summarize(latencies: number[], seconds: number, outcomes: Record<string, number>): Summary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    requests: latencies.length,
    seconds: round(seconds),
    per_second: round(latencies.length / seconds),
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    outcomes,
  };
}

/** A fixed-width table for terminals. */
export function table(rows: Record<string, string | number>[]): string {
  if (rows.length === 0) return "";
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(width[i]!)).join("  ");
  return [line(cols), line(width.map((w) => "-".repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c] ?? ""))))].join("\n");
}
