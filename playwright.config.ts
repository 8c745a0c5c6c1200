import { defineConfig } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { E2E_SETUP_TOKEN } from "./e2e/setup-token";

// The e2e suite runs the production build (`next start`) on a loopback port with a fresh
// embedded database, in Debian's Chromium (`apt-get install chromium`; never `playwright install`).
const PORT = Number(process.env.E2E_PORT ?? 3217);

// The Google story's local fake Google (started by the test itself) listens on the next port.
const GOOGLE = `http://127.0.0.1:${PORT + 1}`;
// The notification-channels story's local fake Slack Web API (started by the test) listens on the one after.
const SLACK = `http://127.0.0.1:${PORT + 2}/api/`;
// The Microsoft 365 story's local fake identity platform + Graph (started by the test) listens on PORT + 41.
const MICROSOFT = `http://127.0.0.1:${PORT + 41}`;
// The OIDC SSO story's identity provider (oidc-provider) listens on PORT + 61, its DNS server (TXT records) on UDP PORT + 62.
const SSO_DNS = `127.0.0.1:${PORT + 62}`;
// The SAML SSO story's identity provider (samlify) listens on PORT + 71, its DNS server on UDP PORT + 72.
const SAML_DNS = `127.0.0.1:${PORT + 72}`;
// Set once in the main process; workers inherit it, so they agree on the directory.
process.env.E2E_DATA_DIR ??= path.join(mkdtempSync(path.join(tmpdir(), "agentdraft-e2e-")), "db");

// Stories that begin at first run get a server and an embedded database of their own (one
// first run per database); the rest share the main one, in file order.
const OWN_SERVER: { name: string; spec: RegExp; port: number; env?: Record<string, string> }[] = [
  { name: "approval-mail", spec: /approval-mail\.spec\.ts/, port: PORT + 10 },
  { name: "handoffs", spec: /handoffs\.spec\.ts/, port: PORT + 20 },
  { name: "web-console", spec: /web-console\.spec\.ts/, port: PORT + 30 },
  // Every page checked for accessibility and for a phone's width; it starts from first run.
  { name: "every-page", spec: /every-page\.spec\.ts/, port: PORT + 44 },
  // An MCP client connecting by URL with OAuth; the owner consents from first run.
  { name: "mcp-oauth", spec: /mcp-oauth\.spec\.ts/, port: PORT + 46 },
  // The whole mail loop through Resend: the story starts the local fake Resend on PORT + 51.
  {
    name: "mail-loop",
    spec: /mail-loop\.spec\.ts/,
    port: PORT + 50,
    env: { MAIL_CAPTURE_ONLY: "0", RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: `http://127.0.0.1:${PORT + 51}`, AGENTDRAFT_MAIL_DOMAIN: "agents.acme-e2e.com", MAIL_FROM: "AgentDraft <agentdraft@acme-e2e.com>" },
  },
  {
    name: "microsoft-calendar",
    spec: /microsoft-calendar\.spec\.ts/,
    port: PORT + 40,
    env: { MICROSOFT_CLIENT_ID: "00000000-0000-0000-0000-fakeclient01", MICROSOFT_CLIENT_SECRET: "fake~microsoft~secret", MICROSOFT_AUTHORITY_URL: MICROSOFT, MICROSOFT_GRAPH_URL: `${MICROSOFT}/v1.0` },
  },
  // An owner connects an OIDC identity provider and verifies a domain by DNS; a member signs in with SSO.
  { name: "sso-oidc", spec: /sso-oidc\.spec\.ts/, port: PORT + 60, env: { SSO_DNS_SERVER: SSO_DNS } },
  // The same with SAML 2.0 (pasted IdP metadata, the IdP's form posted to the ACS), and an invitee who joins by SSO.
  { name: "sso-saml", spec: /sso-saml\.spec\.ts/, port: PORT + 70, env: { SSO_DNS_SERVER: SAML_DNS } },
];
const ENCRYPTION_KEYS = randomBytes(32).toString("base64");

// Idle keep-alive sockets live longer than any wait in a story (a hold's TTL passing, a long-poll):
// with Node's default of 5 s, a request sent just as the server closed its idle socket met
// ECONNRESET. The same setting suits a load balancer in front (longer than its 60 s idle timeout).
const KEEP_ALIVE_MS = 65_000;

/** What every server of the run is started with; a story's own server adds its env. */
function serverEnv(port: number): Record<string, string> {
  return {
    AUTH_SECRET: "e2e-only-secret-0123456789abcdef0123456789abcdef",
    // Production needs its public URL: the address the browser uses (links in mail, OAuth callbacks).
    AUTH_URL: `http://localhost:${port}`,
    AGENTDRAFT_SETUP_TOKEN: E2E_SETUP_TOKEN,
    AGENTDRAFT_ENCRYPTION_KEYS: ENCRYPTION_KEYS,
    INBOUND_SECRET: "e2e-inbound-secret-0123456789",
    // The MTA in front of /api/inbound/raw whose Authentication-Results the server believes (a teammate's mail passes DMARC).
    MAIL_TRUSTED_AUTHSERV_ID: "mx.agents.localhost",
    // No Resend here: mail is captured and read in the web app, on purpose.
    MAIL_CAPTURE_ONLY: "1",
    // The scenario's agent receives its webhooks on loopback.
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    GOOGLE_CLIENT_ID: "fake-client-id.apps.googleusercontent.com",
    GOOGLE_CLIENT_SECRET: "fake-client-secret",
    GOOGLE_API_ROOT_URL: `${GOOGLE}/`,
    GOOGLE_OAUTH_AUTH_URL: `${GOOGLE}/o/oauth2/v2/auth`,
    GOOGLE_OAUTH_TOKEN_URL: `${GOOGLE}/token`,
    GOOGLE_OAUTH_REVOKE_URL: `${GOOGLE}/revoke`,
    SLACK_API_URL: SLACK,
    NEXT_TELEMETRY_DISABLED: "1",
  };
}

// Every server at once (e2e/start-servers.mjs: one migrated database copied for each, all `next
// start` together); Playwright waits for READY_PORT, which answers once they all do.
const READY_PORT = PORT + 99;
const SERVERS = [
  { name: "story", port: PORT, dataDir: process.env.E2E_DATA_DIR!, env: serverEnv(PORT) },
  ...OWN_SERVER.map((o) => ({ name: o.name, port: o.port, dataDir: `${process.env.E2E_DATA_DIR}-${o.name}`, env: { ...serverEnv(o.port), ...o.env } })),
];

export default defineConfig({
  testDir: "e2e",
  globalTeardown: "./e2e/global-teardown.ts",
  outputDir: "test-results",
  // What a loaded machine needs, not what an idle one does: CI runs this beside other jobs on two
  // cores, where a page with axe-core or a first run takes several times as long. Assertions wait
  // for what the user sees (auto-waiting, expect.poll, toPass), never for a fixed time; these only
  // bound how long a real failure takes to report.
  timeout: 180_000,
  expect: { timeout: 30_000 },
  // Two workers: the every-page check (serial, its own server) takes about half the run, and the
  // other stories (each on a server of its own, or independent of one another on the main one)
  // fill the other worker; with one, a browser waiting on a server left the second core idle.
  // Tests within a file run in order (fullyParallel off). E2E_WORKERS=1 runs them one at a time.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  fullyParallel: false,
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
    trace: "retain-on-failure",
  },
  // Workers take files in this order: the every-page check first (the longest, serial), so the
  // other worker runs every other story beside it instead of it running alone at the end.
  projects: [
    ...[...OWN_SERVER]
      .sort((a, b) => Number(b.name === "every-page") - Number(a.name === "every-page"))
      .map((o) => ({ name: o.name, testMatch: o.spec, use: { baseURL: `http://localhost:${o.port}` } })),
    { name: "story", testIgnore: OWN_SERVER.map((o) => o.spec) },
  ],
  webServer: {
    command: "node e2e/start-servers.mjs",
    url: `http://127.0.0.1:${READY_PORT}/`,
    reuseExistingServer: false,
    timeout: 600_000,
    stdout: "pipe",
    stderr: "pipe",
    env: { E2E_SERVERS: JSON.stringify(SERVERS), E2E_READY_PORT: String(READY_PORT), E2E_KEEP_ALIVE_MS: String(KEEP_ALIVE_MS) },
  },
});
