import pg from "pg";
import fs from "node:fs";
const db = process.argv[2] ?? "perf2";
const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${db}` });
await c.connect();
const cpu = (pid) => { const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8"); const f = s.slice(s.lastIndexOf(")") + 2).split(" "); return (Number(f[11]) + Number(f[12])) * 10; };
const pid = (await c.query("select pg_backend_pid() as p")).rows[0].p;
await c.query(`insert into workspaces (id, name) values ('ws_door', 'door') on conflict do nothing`);
await c.query(`insert into api_keys (id, workspace_id, name, prefix, hash, mode) values ('key_door', 'ws_door', 'k', 'ad_live_x', 'h0', 'live') on conflict do nothing`);
for (let i = 0; i < 200; i++) await c.query(`insert into calendars (id, workspace_id, name, timezone) values ('cal_h${i}', 'ws_door', 'c', 'UTC') on conflict do nothing`);
await c.query("set synchronous_commit = off"); // CPU, not fsync waits
const actor = JSON.stringify({ workspace_id: "ws_door", type: "key", id: "key_door", agent_id: null, trace_id: null, request_id: "req_x" });
let n = Math.floor(Math.random() * 1e6);
const place = async () => {
  n++;
  const start = new Date(Date.UTC(2040, 0, 1) + n * 1800_000).toISOString(), end = new Date(Date.UTC(2040, 0, 1) + n * 1800_000 + 1800_000).toISOString();
  const r = await c.query(`select agentdraft_place_hold($1::jsonb, $2, $3::text[], $4::timestamptz, $5::timestamptz, $6::int, $7::int, $8::jsonb) as out`, [actor, `hold_ab${n}_${Date.now()}`, [`cal_h${n % 200}`], start, end, 50, 30, "{}"]);
  return r.rows[0].out.hold.id;
};
const N = Number(process.argv[3] ?? 1500);
async function run(name, fn) {
  for (let i = 0; i < 100; i++) await fn();
  const c0 = cpu(pid), t0 = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(name.padEnd(30), "backend ms/op", ((cpu(pid) - c0) / N).toFixed(3), "wall ms/op", ((performance.now() - t0) / N).toFixed(3));
}
await run("place", place);
await run("place+commit", async () => { const id = await place(); await c.query(`select agentdraft_change_hold($1::jsonb, $2, 'commit', null, 5, 3600) as out`, [actor, id]); });
await run("place+release", async () => { const id = await place(); await c.query(`select agentdraft_change_hold($1::jsonb, $2, 'release', null, 5, 3600) as out`, [actor, id]); });
await c.end();
