// The lease rows of npm run bench:holds: N agents over HTTP acquire a lease on one of `resources`
// named resources; a granted lease is renewed once, then released. Each operation is timed on
// its own, so acquire, renew and release each get their rate and p99.
import { httpClient } from "../cli/loadtest/http-client";
import { runLoad, type LoadOptions } from "../cli/loadtest/run-load";
import { summarize, type Summary } from "../cli/loadtest/stats";

export type LeaseBench = { cycle: Summary; acquire: Summary; renew: Summary; release: Summary; tokensOk: boolean };

export async function runLeasesScenario(opts: { url: string; key: string; resources: number; prefix: string }, load: LoadOptions): Promise<LeaseBench> {
  const client = httpClient(load.concurrency);
  const headers = { authorization: `Bearer ${opts.key}`, "content-type": "application/json" };
  const times: Record<"acquire" | "renew" | "release", number[]> = { acquire: [], renew: [], release: [] };
  const outcomes: Record<"acquire" | "renew" | "release", Record<string, number>> = { acquire: {}, renew: {}, release: {} };
  const lastToken = new Map<string, number>();
  let tokensOk = true;
  const timed = async (op: "acquire" | "renew" | "release", path: string, body: unknown) => {
    const t0 = performance.now();
    const res = await client.request(`${opts.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    times[op].push(performance.now() - t0);
    const json = JSON.parse(res.body) as { id?: string; code?: string; fencing_token?: number };
    const outcome = res.status < 300 ? "ok" : (json.code ?? String(res.status));
    outcomes[op][outcome] = (outcomes[op][outcome] ?? 0) + 1;
    return { ok: res.status < 300, json };
  };
  const started = performance.now();
  const cycle = await runLoad(load, async () => {
    const resource = `${opts.prefix}:${Math.floor(Math.random() * opts.resources)}`;
    const got = await timed("acquire", "/api/v1/leases", { resource, ttl_seconds: 30 });
    if (!got.ok) return got.json.code ?? "error";
    // Tokens handed out per resource must only grow (checked in the order answers arrive, per resource).
    if ((lastToken.get(resource) ?? 0) >= got.json.fencing_token!) tokensOk = false;
    lastToken.set(resource, got.json.fencing_token!);
    await timed("renew", `/api/v1/leases/${got.json.id}/renew`, {});
    await timed("release", `/api/v1/leases/${got.json.id}/release`, {});
    return "granted";
  });
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return {
    cycle,
    acquire: summarize(times.acquire, seconds, outcomes.acquire),
    renew: summarize(times.renew, seconds, outcomes.renew),
    release: summarize(times.release, seconds, outcomes.release),
    tokensOk,
  };
}
