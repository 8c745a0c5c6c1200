import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../../platform/config/env";
import { googleConfig, googleConfigProblem, pushNotificationAddress } from "./config";

const KEYS = ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET", "GOOGLE_PUSH_BASE_URL", "AUTH_URL"] as const;
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));

function setEnv(vars: Partial<Record<(typeof KEYS)[number], string>>) {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, vars);
  resetEnvCache();
}

afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetEnvCache();
});

describe("Google configuration", () => {
  it("is off without credentials, and that is not a problem", () => {
    setEnv({});
    expect(googleConfig()).toBeNull();
    expect(googleConfigProblem()).toBeNull();
  });

  it("refuses half a configuration and a plain-http push origin", () => {
    setEnv({ GOOGLE_CLIENT_ID: "id" });
    expect(googleConfigProblem()).toMatch(/GOOGLE_CLIENT_SECRET/);
    setEnv({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s", GOOGLE_PUSH_BASE_URL: "http://example.com" });
    expect(googleConfigProblem()).toMatch(/https/);
  });

  it("pushes only to an https origin: GOOGLE_PUSH_BASE_URL, else an https AUTH_URL", () => {
    setEnv({ AUTH_URL: "http://localhost:3000" });
    expect(pushNotificationAddress()).toBeNull();
    setEnv({ AUTH_URL: "https://app.example.com/some/path" });
    expect(pushNotificationAddress()).toBe("https://app.example.com/api/google/notifications");
    setEnv({ AUTH_URL: "https://app.example.com", GOOGLE_PUSH_BASE_URL: "https://hooks.example.com" });
    expect(pushNotificationAddress()).toBe("https://hooks.example.com/api/google/notifications");
    setEnv({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s" });
    expect(googleConfig()).toMatchObject({ clientId: "id", apiRootUrl: "https://www.googleapis.com/", tokenUrl: "https://oauth2.googleapis.com/token" });
  });
});
