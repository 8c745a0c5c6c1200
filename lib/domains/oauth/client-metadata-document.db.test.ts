import { afterAll, beforeAll, describe, expect, it } from "vitest";
import https from "node:https";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import { parseAllowlist } from "../../platform/outbound/ssrf-guard";
import { checkAuthorizeRequest } from "./authorize-request";
import { fetchClientMetadata, MAX_DOCUMENT_BYTES } from "./client-metadata-document";
import { mcpResource } from "./metadata";

// A real TLS server on loopback with a certificate made for 127.0.0.1, serving documents by path.
let server: https.Server;
let base = "";
let ca = "";
const documents = new Map<string, { status?: number; body: string; headers?: Record<string, string> }>();

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cimd-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
    "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
  ca = fs.readFileSync(path.join(dir, "cert.pem"), "utf8");
  server = https.createServer({ key: fs.readFileSync(path.join(dir, "key.pem")), cert: ca }, (req, res) => {
    const doc = documents.get(req.url ?? "");
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status ?? 200, { "content-type": "application/json", ...doc.headers }).end(doc.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const allow = () => ({ allow: parseAllowlist("127.0.0.1"), ca });
const publish = (p: string, doc: Record<string, unknown> | string, extra: { status?: number; headers?: Record<string, string> } = {}) =>
  documents.set(p, { body: typeof doc === "string" ? doc : JSON.stringify(doc), ...extra });

describe("Client ID Metadata Documents", () => {
  it("a client named by its document's URL is fetched over TLS, checked, stored, and can be authorized", async () => {
    const clientId = `${base}/clients/good.json`;
    publish("/clients/good.json", { client_id: clientId, client_name: "Doc Client", redirect_uris: ["http://127.0.0.1:7777/cb"] });
    const verifier = "v".repeat(43);
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:7777/cb",
      response_type: "code",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource: mcpResource(),
      state: "s1",
    });
    const checked = await checkAuthorizeRequest(query, allow());
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(checked.client).toMatchObject({ clientId, name: "Doc Client", registration: "metadata_document", origins: ["http://127.0.0.1:7777"] });
    // A redirect URI the document does not list is shown, never redirected.
    query.set("redirect_uri", "http://127.0.0.1:7777/other");
    expect(await checkAuthorizeRequest(query, allow())).toMatchObject({ ok: false, problem: expect.stringMatching(/not one this client registered/) });
  });

  it("refuses a document that is not its own, too large, redirected, not JSON, or on a private address not allowlisted", async () => {
    publish("/clients/other.json", { client_id: `${base}/clients/elsewhere.json`, redirect_uris: ["https://ok.test/cb"] });
    await expect(fetchClientMetadata(`${base}/clients/other.json`, allow())).rejects.toThrow(/not its own URL/);
    publish("/clients/big.json", { client_id: `${base}/clients/big.json`, redirect_uris: ["https://ok.test/cb"], client_name: "x".repeat(MAX_DOCUMENT_BYTES) });
    await expect(fetchClientMetadata(`${base}/clients/big.json`, allow())).rejects.toThrow(/larger than/);
    publish("/clients/moved.json", "", { status: 302, headers: { location: "http://169.254.169.254/" } });
    await expect(fetchClientMetadata(`${base}/clients/moved.json`, allow())).rejects.toThrow(/HTTP 302/);
    publish("/clients/text.json", "hello");
    await expect(fetchClientMetadata(`${base}/clients/text.json`, allow())).rejects.toThrow(/not JSON/);
    publish("/clients/bad-uri.json", { client_id: `${base}/clients/bad-uri.json`, redirect_uris: ["javascript:alert(1)"] });
    await expect(fetchClientMetadata(`${base}/clients/bad-uri.json`, allow())).rejects.toThrow(/javascript/);
    publish("/clients/private.json", { client_id: `${base}/clients/private.json`, redirect_uris: ["https://ok.test/cb"] });
    await expect(fetchClientMetadata(`${base}/clients/private.json`, { ca })).rejects.toThrow(/loopback/);
    // Untrusted TLS (no CA given): refused.
    await expect(fetchClientMetadata(`${base}/clients/private.json`, { allow: parseAllowlist("127.0.0.1") })).rejects.toThrow(/certificate/);
  });
});
