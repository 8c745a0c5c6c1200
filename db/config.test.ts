import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrationUrlWarning, resolveDatabaseConfig, redactUrl } from "./config";
import { ConfigError } from "../lib/platform/config/env";

const base: Parameters<typeof resolveDatabaseConfig>[0] = { AGENTDRAFT_DATA_DIR: ".data", DATABASE_POOL_MAX: 10 };

describe("resolveDatabaseConfig", () => {
  it("uses embedded PGlite in AGENTDRAFT_DATA_DIR when DATABASE_URL is unset", () => {
    expect(resolveDatabaseConfig(base)).toEqual({ driver: "pglite", dataDir: path.resolve(".data") });
    expect(resolveDatabaseConfig({ ...base, AGENTDRAFT_DATA_DIR: "memory://" })).toEqual({ driver: "pglite", dataDir: "memory://" });
  });

  it("uses the Neon driver for a Neon host or when DATABASE_DRIVER=neon", () => {
    const neonUrl = "postgres://u:p@ep-cool-pine-123456.us-east-2.aws.neon.tech/db?sslmode=require";
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: neonUrl }).driver).toBe("neon");
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: "postgres://localhost/x", DATABASE_DRIVER: "neon" }).driver).toBe("neon");
  });

  it("uses node-postgres for any other postgres URL", () => {
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x" })).toMatchObject({
      driver: "pg",
      poolMax: 10,
      idleTimeoutMs: 300_000, // a long-lived server keeps its connections and the plans Postgres cached on them
      preparedStatements: true,
    });
  });

  it("runs fixed statements unnamed on node-postgres when DATABASE_PREPARED_STATEMENTS=off (a pooler that does not track them)", () => {
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: "postgres://localhost:6432/x", DATABASE_PREPARED_STATEMENTS: "off" })).toMatchObject({ driver: "pg", preparedStatements: false });
  });

  it("closes idle connections soon on Neon (functions freeze) and late elsewhere, unless DATABASE_IDLE_TIMEOUT_MS says", () => {
    const neonUrl = "postgres://u:p@ep-cool-pine-123456.us-east-2.aws.neon.tech/db?sslmode=require";
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: neonUrl })).toMatchObject({ driver: "neon", idleTimeoutMs: 5_000 });
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: neonUrl, DATABASE_IDLE_TIMEOUT_MS: 800 })).toMatchObject({ idleTimeoutMs: 800 });
    expect(resolveDatabaseConfig({ ...base, DATABASE_URL: "postgres://localhost/x", DATABASE_IDLE_TIMEOUT_MS: 800 })).toMatchObject({ driver: "pg", idleTimeoutMs: 800 });
  });

  it.each([
    ["not a url", /not a valid URL/],
    ["mysql://root@localhost/db", /must start with postgres:\/\//],
    ["http://example.test/db", /must start with postgres:\/\//],
  ])("rejects %s with a clear message", (url, message) => {
    expect(() => resolveDatabaseConfig({ ...base, DATABASE_URL: url })).toThrow(ConfigError);
    expect(() => resolveDatabaseConfig({ ...base, DATABASE_URL: url })).toThrow(message);
  });

  it("redacts passwords for display", () => {
    expect(redactUrl("postgres://u:secret@h/db")).toBe("postgres://u:***@h/db");
  });
});

describe("migrationUrlWarning", () => {
  const pooled = "postgres://u:p@ep-cool-pine-123456-pooler.us-east-2.aws.neon.tech/db?sslmode=require";
  it("names a pooled URL that migrations would run through when DATABASE_URL_UNPOOLED is unset", () => {
    expect(migrationUrlWarning({ ...base, DATABASE_URL: pooled })).toMatch(/DATABASE_URL_UNPOOLED is not set.*pooled URL \(ep-cool-pine-123456-pooler\.us-east-2\.aws\.neon\.tech/);
    expect(migrationUrlWarning({ ...base, DATABASE_URL: "postgres://postgres@127.0.0.1:6432/x" })).toMatch(/DATABASE_URL_UNPOOLED is not set, so migrations run through DATABASE_URL \(127\.0\.0\.1\)/);
  });

  it("says nothing when migrations have a direct URL, or the database is the embedded one", () => {
    expect(migrationUrlWarning({ ...base, DATABASE_URL: pooled, DATABASE_URL_UNPOOLED: "postgres://u:p@ep-cool-pine-123456.us-east-2.aws.neon.tech/db" })).toBeNull();
    expect(migrationUrlWarning(base)).toBeNull();
  });
});
