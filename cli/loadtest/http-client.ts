import http from "node:http";
import https from "node:https";

export type HttpResult = { status: number; body: string };

/** A keep-alive HTTP client with one socket per concurrent client, so load tests measure the server, not connection setup. */
export function httpClient(concurrency: number) {
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: concurrency }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: concurrency }),
  };
  function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpResult> {
    const u = new URL(url);
    const lib = u.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        u,
        {
          method: init.method ?? "GET",
          headers: { ...init.headers, ...(init.body !== undefined ? { "content-length": Buffer.byteLength(init.body) } : {}) },
          agent: agents[u.protocol as "http:" | "https:"],
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", reject);
      if (init.body !== undefined) req.write(init.body);
      req.end();
    });
  }
  return { request, close: () => Object.values(agents).forEach((a) => a.destroy()) };
}
