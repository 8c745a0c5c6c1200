import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/platform/config/env";
import { GET } from "./route";

afterEach(() => {
  delete process.env.JOB_RUNNER;
  resetEnvCache();
});

describe("/api/inngest", () => {
  it("says where jobs run instead of serving Inngest when the embedded runner is in charge", async () => {
    delete process.env.INNGEST_SIGNING_KEY;
    delete process.env.INNGEST_EVENT_KEY;
    resetEnvCache();
    const res = await GET(new Request("http://127.0.0.1/api/inngest") as never, undefined as never);
    expect(res.status).toBe(404);
    expect((await res.json()).message).toMatch(/embedded engine/);
  });
});
