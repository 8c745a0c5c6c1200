import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "./env";
import { checkStartup } from "../../composition/check-startup";
import { publicOrigin, publicUrlProblem } from "./public-url";

// Issue #37, "links in background work": the public URL is derived in one place, for requests
// and jobs alike, and production refuses to start without it.

const VARS = ["NODE_ENV", "AUTH_URL", "PORT", "VERCEL", "VERCEL_ENV", "VERCEL_URL", "VERCEL_BRANCH_URL", "VERCEL_PROJECT_PRODUCTION_URL", "AUTH_SECRET", "AGENTDRAFT_ENCRYPTION_KEYS", "MAIL_CAPTURE_ONLY", "DATABASE_URL", "DATABASE_DRIVER", "JOB_RUNNER", "INNGEST_SIGNING_KEY", "INNGEST_EVENT_KEY"] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
function withEnv(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, { AGENTDRAFT_DATA_DIR: "memory://" }, vars);
  resetEnvCache();
}
afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else (process.env as Record<string, string>)[v] = saved[v]!;
  }
  resetEnvCache();
});

const prod = { NODE_ENV: "production", AUTH_SECRET: "a-production-secret-of-32-characters!!", AGENTDRAFT_ENCRYPTION_KEYS: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", MAIL_CAPTURE_ONLY: "1" } as const;

describe("the public URL (issue #37)", () => {
  it("is AUTH_URL's origin when set, in any environment", () => {
    withEnv({ AUTH_URL: "https://agents.acme.com/some/path" });
    expect(publicOrigin()).toBe("https://agents.acme.com");
    withEnv({ ...prod, AUTH_URL: "https://agents.acme.com" });
    expect(publicOrigin()).toBe("https://agents.acme.com");
  });

  it("outside production without AUTH_URL, is this server's own port on localhost (not a guess of 3000)", () => {
    withEnv({ NODE_ENV: "development", PORT: "4567" });
    expect(publicOrigin()).toBe("http://localhost:4567");
    withEnv({ NODE_ENV: "development" });
    expect(publicOrigin()).toBe("http://localhost:3000");
  });

  it("on Vercel without AUTH_URL, is the deployment's own address", () => {
    withEnv({ ...prod, VERCEL: "1", VERCEL_ENV: "production", VERCEL_PROJECT_PRODUCTION_URL: "agentdraft.acme.com", VERCEL_URL: "agentdraft-abc123.vercel.app" });
    expect(publicOrigin()).toBe("https://agentdraft.acme.com");
    withEnv({ ...prod, VERCEL: "1", VERCEL_ENV: "preview", VERCEL_BRANCH_URL: "agentdraft-git-fix-acme.vercel.app", VERCEL_URL: "agentdraft-abc123.vercel.app" });
    expect(publicOrigin()).toBe("https://agentdraft-git-fix-acme.vercel.app");
  });

  it("is required in production: the start-up check says to set AUTH_URL, and nothing builds a localhost link", async () => {
    withEnv({ ...prod });
    expect(publicUrlProblem()).toMatch(/AUTH_URL is not set/);
    expect(await checkStartup()).toMatch(/AUTH_URL is not set\. In production AgentDraft needs its public URL/);
    expect(() => publicOrigin()).toThrow(/AUTH_URL is not set/);
    withEnv({ ...prod, AUTH_URL: "https://agents.acme.com" });
    expect(await checkStartup()).toBeNull();
  });

  it("is derived in one place: no other module reads AUTH_URL for a link or falls back to localhost:3000", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
          const source = fs.readFileSync(file, "utf8");
          if (/["'`]http:\/\/localhost:3000/.test(source) || /new URL\(env\(\)\.AUTH_URL/.test(source) || /headers\(\)[\s\S]{0,200}get\("host"\)/.test(source)) offenders.push(file);
        }
      }
    };
    for (const dir of ["lib", "app", "inngest", "cli"]) walk(dir);
    expect(offenders.filter((f) => !f.endsWith(path.join("config", "public-url.ts")) && !f.includes(path.join("lib", "composition", "docs")))).toEqual([]);
  });
});
