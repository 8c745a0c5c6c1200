import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "@/lib/platform/config/env";
import { closeDb } from "@/db/client";

const saved = { ...process.env };
beforeAll(() => {
  // A Postgres server that is not there (loopback, a closed port).
  process.env.DATABASE_URL = "postgres://agentdraft:secret-password@127.0.0.1:1/agentdraft";
  resetEnvCache();
});
afterAll(async () => {
  await closeDb();
  process.env = { ...saved };
  resetEnvCache();
});

describe("GET /api/health when the database is down", () => {
  it("says so with 503, and no error text, address or credentials, which go to the server log", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { GET } = await import("./route");
    // A key cannot be checked without the database: the answer is the public one.
    const res = await GET(new Request("http://localhost/api/health", { headers: { authorization: `Bearer ad_live_${"A".repeat(43)}` } }));
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: "down" });
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|secret|refused|connect/i);
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });
});
