import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../../platform/config/env";
import { microsoftConfig, microsoftConfigProblem, notificationAddresses } from "./config";

const KEYS = ["MICROSOFT_CLIENT_ID", "MICROSOFT_CLIENT_SECRET", "MICROSOFT_TENANT", "MICROSOFT_AUTHORITY_URL", "MICROSOFT_NOTIFICATION_BASE_URL", "AUTH_URL"] as const;
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

describe("Microsoft configuration", () => {
  it("is off without credentials, and that is not a problem", () => {
    setEnv({});
    expect(microsoftConfig()).toBeNull();
    expect(microsoftConfigProblem()).toBeNull();
  });

  it("builds the v2.0 endpoints from the authority and tenant", () => {
    setEnv({ MICROSOFT_CLIENT_ID: "id", MICROSOFT_CLIENT_SECRET: "secret" });
    expect(microsoftConfig()).toMatchObject({ authorizeUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize", tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token", graphUrl: "https://graph.microsoft.com/v1.0" });
    setEnv({ MICROSOFT_CLIENT_ID: "id", MICROSOFT_CLIENT_SECRET: "secret", MICROSOFT_TENANT: "contoso.onmicrosoft.com", MICROSOFT_AUTHORITY_URL: "http://127.0.0.1:9/" });
    expect(microsoftConfig()!.tokenUrl).toBe("http://127.0.0.1:9/contoso.onmicrosoft.com/oauth2/v2.0/token");
  });

  it("refuses half a configuration and a plain-http public notification origin", () => {
    setEnv({ MICROSOFT_CLIENT_ID: "id" });
    expect(microsoftConfigProblem()).toContain("MICROSOFT_CLIENT_SECRET");
    setEnv({ MICROSOFT_CLIENT_ID: "id", MICROSOFT_CLIENT_SECRET: "s", MICROSOFT_NOTIFICATION_BASE_URL: "http://agentdraft.example.com" });
    expect(microsoftConfigProblem()).toContain("https://");
  });

  it("receives notifications only at an https origin (or a loopback one set on purpose, for a local fake)", () => {
    setEnv({ AUTH_URL: "http://localhost:3000" });
    expect(notificationAddresses()).toBeNull();
    setEnv({ AUTH_URL: "https://agentdraft.example.com/app" });
    expect(notificationAddresses()).toEqual({ notificationUrl: "https://agentdraft.example.com/api/microsoft/notifications", lifecycleNotificationUrl: "https://agentdraft.example.com/api/microsoft/notifications" });
    setEnv({ MICROSOFT_NOTIFICATION_BASE_URL: "http://127.0.0.1:4567" });
    expect(notificationAddresses()?.notificationUrl).toBe("http://127.0.0.1:4567/api/microsoft/notifications");
  });
});
