import { describe, expect, it } from "vitest";
import { GET } from "../../app/api/health/route";

describe("GET /api/health", () => {
  it("reports the database reachable, its driver and no pending migrations", async () => {
    const res = await GET();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body).toMatchObject({
      status: "ok",
      database: {
        reachable: true,
        driver: ({ postgres: "pg", pooled: "neon" } as Record<string, string>)[process.env.AGENTDRAFT_TEST_DB ?? ""] ?? "pglite",
        migrations: { pending: 0 },
      },
    });
    expect(body.database.latency_ms).toBeGreaterThanOrEqual(0);
    // Anyone may call it: it names no migration (nothing about the schema's history).
    expect(body.database.migrations).toEqual({ applied: expect.any(Number), pending: 0 });
    expect(JSON.stringify(body)).not.toMatch(/foundation|audit|_[a-z]+_/);
  });
});
