// One serverless function's cold start, run by bench/cold-start.ts in a fresh Node process
// whose working directory is .next/standalone (only the files the build traced are there).
// Plain JavaScript on purpose: no TypeScript loader between Node's start and the route.
//
// It does what a function host does with a built App Router route: requires the route's
// compiled entry (.next/server/app/<route>/route.js: Next's route runtime, the app code is
// loaded on the first request), and hands it a real HTTP request through the entry's exported
// `handler(req, res, ctx)` (what Next's own server and deployment adapters call). The first
// request pays instrumentation.ts, the route's module graph, the database's open and the
// handler; the second one, the same request again, is the warm cost for comparison.
//
// argv[2]: the route's directory under .next/server/app; argv[3]: JSON array of requests
// ({ method, path, headers, body }). Prints `answered` after the first answer, then one JSON
// line with its own clocks, and exits.
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

const bootMs = performance.now(); // Node's own start, before this file ran (built-in modules only)
const requireRoute = createRequire(path.resolve("package.json"));

const [route, requestsJson] = process.argv.slice(2);
const requests = JSON.parse(requestsJson);
const marks = { boot_ms: bootMs };

const t0 = performance.now();
const entry = requireRoute(path.resolve(".next/server/app", route, "route.js"));
marks.require_entry_ms = performance.now() - t0;

const pending = [];
const server = http.createServer((req, res) => {
  entry.handler(req, res, { waitUntil: (p) => pending.push(p) }).catch((err) => {
    console.error(err);
    res.statusCode = 500;
    res.end();
  });
});

function send(port, r) {
  return new Promise((resolve, reject) => {
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const req = http.request({ host: "127.0.0.1", port, method: r.method, path: r.path, headers: { ...r.headers, ...(body ? { "content-length": body.length } : {}) } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8").slice(0, 300) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

server.listen(0, "127.0.0.1", async () => {
  const port = server.address().port;
  const answers = [];
  for (const r of requests) {
    const t = performance.now();
    const a = await send(port, r);
    answers.push({ ...a, ms: performance.now() - t });
    if (answers.length === 1) process.stdout.write("answered\n"); // the parent's clock stops here
  }
  marks.first_request_ms = answers[0].ms;
  marks.second_request_ms = answers[1]?.ms ?? null;
  marks.total_ms = performance.now();
  process.stdout.write(JSON.stringify({ ...marks, answers }) + "\n", () => process.exit(0));
});
