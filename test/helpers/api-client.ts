import { afterAll, beforeAll } from "vitest";
import { startApiServer } from "./api-server";

export type ApiCall = {
  method?: string;
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};

/** Starts the route handlers on loopback for this test file and returns a small fetch helper. */
export function serveApiForTests() {
  let server: Awaited<ReturnType<typeof startApiServer>>;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function api(path: string, call: ApiCall = {}) {
    const headers: Record<string, string> = { ...call.headers };
    if (call.key) headers.authorization = `Bearer ${call.key}`;
    let body: string | undefined = call.rawBody;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(server.url + path, { method: call.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }
  return { api, url: () => server.url };
}
