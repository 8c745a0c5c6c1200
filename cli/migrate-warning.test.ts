import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("agentdraft db migrate (the build's migration step)", () => {
  it("says, before it connects, that migrations run through DATABASE_URL when DATABASE_URL_UNPOOLED is unset", async () => {
    // Nothing listens on port 1: the command fails after its warning, as a build would show it.
    const env = { ...process.env, DATABASE_URL: "postgres://u:p@127.0.0.1:1/x", NODE_ENV: "development" } as NodeJS.ProcessEnv;
    delete env.DATABASE_URL_UNPOOLED;
    const failed = await run(process.execPath, ["bin/agentdraft.mjs", "db", "migrate"], { env, timeout: 60_000 }).catch((e: { code: number; stderr: string }) => e);
    expect("code" in failed && failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/^warning: DATABASE_URL_UNPOOLED is not set, so migrations run through DATABASE_URL \(127\.0\.0\.1\)/m);

    const direct = await run(process.execPath, ["bin/agentdraft.mjs", "db", "migrate"], { env: { ...env, DATABASE_URL_UNPOOLED: "postgres://u:p@127.0.0.1:1/x" }, timeout: 60_000 }).catch((e: { stderr: string }) => e);
    expect(direct.stderr).not.toMatch(/DATABASE_URL_UNPOOLED/);
  }, 120_000);
});
