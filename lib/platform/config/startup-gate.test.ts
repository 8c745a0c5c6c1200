import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "./env";
import { recordStartupCheck, resetStartupGate } from "./startup-gate";
import { gatedRoute } from "../api/startup-gated";
import { plainJsonRoute } from "../api/plain-route";
import { closeDb } from "../../../db/client";
import { diagnoseStartup, refuseToStartIfMisconfigured } from "../../composition/check-startup";

const saved = { DATABASE_URL: process.env.DATABASE_URL, DATABASE_URL_UNPOOLED: process.env.DATABASE_URL_UNPOOLED, AGENTDRAFT_DATA_DIR: process.env.AGENTDRAFT_DATA_DIR, VERCEL: process.env.VERCEL, WEBHOOK_ALLOWED_HOSTS: process.env.WEBHOOK_ALLOWED_HOSTS };
afterEach(async () => {
  resetStartupGate();
  await closeDb();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
});

const ok = gatedRoute(async (_req: Request) => Response.json({ served: true }));
const inbound = plainJsonRoute(async () => ({ served: true }));

describe("the start-up gate (what Vercel answers instead of exiting)", () => {
  it("answers a configuration problem as 503 problem+json with the reason, on every kind of route", async () => {
    recordStartupCheck({ reason: "RESEND_API_KEY is not set: set RESEND_API_KEY.", transient: false });
    for (const route of [ok, inbound]) {
      const res = await route(new Request("http://localhost/x", { method: "POST" }));
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(await res.json()).toMatchObject({ status: 503, code: "service_unavailable", reason: "misconfigured", detail: expect.stringContaining("set RESEND_API_KEY") });
    }
  });

  it("checks a database that did not answer again on the next request, and serves once it does", async () => {
    process.env.DATABASE_URL = "postgres://u:p@127.0.0.1:1/asleep";
    resetEnvCache();
    recordStartupCheck({ reason: "Cannot reach the database at DATABASE_URL: nothing is listening there.", transient: true }, () => diagnoseStartup({ pingTimeoutMs: 5_000 }));
    const asleep = await ok(new Request("http://localhost/x"));
    expect(asleep.status).toBe(503);
    expect(asleep.headers.get("retry-after")).toBe("2");
    expect(await asleep.json()).toMatchObject({ reason: "database_unavailable", detail: expect.stringMatching(/starting: Cannot reach the database/) });

    // The database "wakes" (here: the embedded one), and the next request is served.
    delete process.env.DATABASE_URL;
    process.env.AGENTDRAFT_DATA_DIR = "memory://";
    resetEnvCache();
    await closeDb();
    const awake = await ok(new Request("http://localhost/x"));
    expect(awake.status).toBe(200);
    expect(await awake.json()).toEqual({ served: true });
  });

  it("lets everything through once the check passed, and when no check ran (a route called directly)", async () => {
    expect((await ok(new Request("http://localhost/x"))).status).toBe(200);
    recordStartupCheck(null);
    expect((await inbound(new Request("http://localhost/x", { method: "POST" }))).status).toBe(200);
  });

  it("at start, exits on a configuration problem, except on Vercel, where requests answer it", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      process.env.WEBHOOK_ALLOWED_HOSTS = "10.0.0.0/99";
      resetEnvCache();
      await refuseToStartIfMisconfigured();
      expect(exit).toHaveBeenCalledWith(1);
      exit.mockClear();

      process.env.VERCEL = "1";
      process.env.DATABASE_URL = "postgres://u:p@127.0.0.1:1/x";
      resetEnvCache();
      await refuseToStartIfMisconfigured();
      expect(exit).not.toHaveBeenCalled();
      const res = await ok(new Request("http://localhost/x"));
      expect(res.status).toBe(503);
      expect((await res.json()).detail).toMatch(/WEBHOOK_ALLOWED_HOSTS: bad CIDR/);
    } finally {
      exit.mockRestore();
      logged.mockRestore();
    }
  });

  it("at start, says when migrations would run through DATABASE_URL (no DATABASE_URL_UNPOOLED), and serves all the same", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      process.env.VERCEL = "1"; // nothing exits: the database below is asleep (transient)
      process.env.DATABASE_URL = "postgres://u:p@127.0.0.1:1/x";
      delete process.env.DATABASE_URL_UNPOOLED;
      resetEnvCache();
      await refuseToStartIfMisconfigured();
      expect(warned.mock.calls.flat().join("\n")).toMatch(/DATABASE_URL_UNPOOLED is not set, so migrations run through DATABASE_URL \(127\.0\.0\.1\)/);

      warned.mockClear();
      process.env.DATABASE_URL_UNPOOLED = "postgres://u:p@127.0.0.1:2/x";
      resetEnvCache();
      resetStartupGate();
      await refuseToStartIfMisconfigured();
      expect(warned.mock.calls.flat().join("\n")).not.toMatch(/DATABASE_URL_UNPOOLED/);
    } finally {
      warned.mockRestore();
      logged.mockRestore();
    }
  });
});
