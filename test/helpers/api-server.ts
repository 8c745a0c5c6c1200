import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

type RouteModule = Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response> | Response>;
type Route = { pattern: RegExp; names: string[]; file: string };

const APP = path.resolve("app");

/** app/**\/route.ts as URL matchers, static segments before dynamic ones (as Next.js does). */
export function discoverRoutes(dir = APP): Route[] {
  const routes: Route[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory() && entry.name !== "node_modules") walk(full);
      else if (entry.name === "route.ts") {
        // Route groups like (app) do not appear in URLs.
        const segments = path.relative(APP, d).split(path.sep).filter((s) => s && !/^\(.*\)$/.test(s));
        const names: string[] = [];
        const source = segments
          .map((s) => {
            const m = /^\[(\w+)\]$/.exec(s);
            if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
            names.push(m[1]!);
            return "([^/]+)";
          })
          .join("/");
        routes.push({ pattern: new RegExp(`^/${source}/?$`), names, file: full });
      }
    }
  };
  walk(dir);
  // Static segments before dynamic ones, as Next.js matches.
  return routes.sort((a, b) => a.names.length - b.names.length);
}

/**
 * Serves the app's route handlers over real HTTP on loopback: requests and responses go
 * through sockets, headers and streaming bodies exactly as a client sees them. (The full
 * Next.js server is exercised by the e2e tests and `npm run bench:api`.)
 */
export async function startApiServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const routes = discoverRoutes();
  const modules = new Map<string, RouteModule>();
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const route = routes.find((r) => r.pattern.test(url.pathname));
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      const match = route.pattern.exec(url.pathname)!;
      let params: Record<string, string>;
      try {
        params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
      } catch {
        // A path that does not decode (`%ED%A0%80`, a lone `%`): Next.js answers 400 (DecodeError).
        res.writeHead(400).end();
        return;
      }
      if (!modules.has(route.file)) modules.set(route.file, (await import(route.file)) as RouteModule);
      const handler = modules.get(route.file)![req.method ?? "GET"];
      if (!handler) {
        res.writeHead(405).end();
        return;
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const webBody = hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined;
      // A client that goes away aborts the request and cancels a streamed answer, as in Next.js.
      const gone = new AbortController();
      res.on("close", () => gone.abort());
      const request = new Request(url.toString().replace("http://127.0.0.1", `http://${req.headers.host}`), {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: webBody,
        duplex: "half",
        signal: gone.signal,
      } as RequestInit);
      const response = await handler(request, { params: Promise.resolve(params) });
      // Discard what the handler left unread (a refused oversize body) so the client, still
      // sending, reads the answer instead of a reset connection.
      if (webBody && !req.readableEnded && !webBody.locked) {
        const reader = webBody.getReader();
        while (!(await reader.read()).done);
      }
      // Several Set-Cookie headers stay several (Object.fromEntries would keep only the last).
      const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
      const setCookies = response.headers.getSetCookie();
      if (setCookies.length > 1) headers["set-cookie"] = setCookies;
      res.writeHead(response.status, headers);
      if (response.body) {
        const reader = response.body.getReader();
        gone.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
        for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
      }
      res.end();
    } catch (err) {
      console.error("[test server]", err);
      // Failed mid-body: the connection is cut, as Next.js does, so the client sees an incomplete response.
      if (res.headersSent) res.destroy();
      else res.writeHead(500).end();
    }
  });
  // Idle keep-alive sockets outlive any pause between a test's requests (the client and this
  // server share one event loop: a test that computes for 5 s between two requests met the
  // server closing the idle socket just as the next request went out, ECONNRESET, on a busy
  // machine). As the e2e servers and a deployment behind a load balancer are set.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    // Stops listening and cuts every connection still open: an event stream a test left open would
    // otherwise hold the file's end for its whole life (a minute in the stream tests), idle.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
