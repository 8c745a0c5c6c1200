import http from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";

/** What Resend's Domains API says of a record's state, and of a domain's. */
type RecordStatus = "not_started" | "pending" | "verified" | "failed" | "temporary_failure";
type DomainStatus = "not_started" | "pending" | "verified" | "failed" | "partially_verified" | "partially_failed";

type FakeRecord = { record: "SPF" | "DKIM" | "Receiving"; name: string; type: "MX" | "TXT"; ttl: string; status: RecordStatus; value: string; priority?: number };
type FakeDomain = {
  id: string;
  name: string;
  created_at: string;
  region: string;
  status: DomainStatus;
  capabilities: { sending: "enabled" | "disabled"; receiving: "enabled" | "disabled" };
  records: FakeRecord[];
};

/** Which of a domain's records "exist in DNS", as the test decides: the fake's truth when it verifies. */
export type DnsTruth = { spf?: boolean; dkim?: boolean; mx?: boolean };

/**
 * A local stand-in for Resend's Domains API (loopback only), written from its reference: `POST
 * /domains` (records for SPF and the return path on `send.`, DKIM at `resend._domainkey`, and,
 * with receiving enabled, the inbound MX), `GET /domains` (a list, `limit` 1–100), `GET
 * /domains/{id}`, `POST /domains/{id}/verify` and `DELETE /domains/{id}`; bearer auth (401
 * missing, 403 invalid), and Resend's error JSON (`{statusCode, name, message}`). A verify looks
 * at the DNS truth the test sets with `setDns` (nothing published at first): a record found is
 * `verified`, one not found `pending` (or `failed` after `expire`). Point the real `resend`
 * client at `url`.
 */
export async function startFakeResendDomains(opts: { apiKey?: string } = {}) {
  const apiKey = opts.apiKey ?? "re_test_key";
  const domains = new Map<string, FakeDomain>();
  const dns = new Map<string, DnsTruth>();
  const expired = new Set<string>();
  const failures: { status: number; name: string; message: string }[] = [];
  /** Every request that passed authentication: method, path and JSON body. */
  const requests: { method: string; path: string; body: unknown }[] = [];

  const recordsFor = (name: string, receiving: boolean): FakeRecord[] => [
    { record: "SPF", name: "send", type: "MX", ttl: "Auto", status: "not_started", value: "feedback-smtp.us-east-1.amazonses.com", priority: 10 },
    { record: "SPF", name: "send", type: "TXT", ttl: "Auto", status: "not_started", value: '"v=spf1 include:amazonses.com ~all"' },
    { record: "DKIM", name: "resend._domainkey", type: "TXT", ttl: "Auto", status: "not_started", value: `p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ${randomBytes(96).toString("base64")}IDAQAB` },
    ...(receiving ? [{ record: "Receiving" as const, name, type: "MX" as const, ttl: "Auto", status: "not_started" as RecordStatus, value: "inbound-smtp.us-east-1.amazonaws.com", priority: 10 }] : []),
  ];

  /** Resend's overall status from its records'. */
  const overall = (records: FakeRecord[]): DomainStatus => {
    const s = records.map((r) => r.status);
    if (s.every((x) => x === "verified")) return "verified";
    if (s.some((x) => x === "failed")) return s.some((x) => x === "verified") ? "partially_failed" : "failed";
    if (s.some((x) => x === "verified")) return "partially_verified";
    if (s.every((x) => x === "not_started")) return "not_started";
    return "pending";
  };

  const check = (d: FakeDomain) => {
    const truth = dns.get(d.name) ?? {};
    for (const r of d.records) {
      const found = r.record === "SPF" ? truth.spf : r.record === "DKIM" ? truth.dkim : truth.mx;
      r.status = found ? "verified" : expired.has(d.name) ? "failed" : "pending";
    }
    d.status = overall(d.records);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const json = (status: number, value: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      const error = (status: number, name: string, message: string) => json(status, { statusCode: status, name, message });
      const url = new URL(req.url ?? "/", "http://fake");
      const auth = req.headers.authorization;
      if (!auth) return error(401, "missing_api_key", "Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY");
      if (auth !== `Bearer ${apiKey}`) return error(403, "invalid_api_key", "API key is invalid");
      let body: Record<string, unknown> = {};
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          return error(400, "invalid_parameter", "Invalid JSON body");
        }
      }
      requests.push({ method: req.method ?? "", path: url.pathname, body });
      const failure = failures.shift();
      if (failure) return error(failure.status, failure.name, failure.message);

      if (req.method === "POST" && url.pathname === "/domains") {
        const name = typeof body.name === "string" ? body.name.toLowerCase() : "";
        if (!name) return error(422, "missing_required_field", "Missing `name` field.");
        if (!/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(name)) return error(422, "validation_error", "Invalid domain name.");
        if ([...domains.values()].some((d) => d.name === name)) return error(403, "validation_error", `The ${name} domain has been registered already.`);
        const capabilities = { sending: "enabled" as const, receiving: (body.capabilities as { receiving?: string } | undefined)?.receiving === "enabled" ? ("enabled" as const) : ("disabled" as const) };
        const d: FakeDomain = { id: randomUUID(), name, created_at: new Date().toISOString(), region: typeof body.region === "string" ? body.region : "us-east-1", status: "not_started", capabilities, records: recordsFor(name, capabilities.receiving === "enabled") };
        domains.set(d.id, d);
        return json(200, { id: d.id, name: d.name, created_at: d.created_at, status: d.status, region: d.region, capabilities: d.capabilities, records: d.records, open_tracking: false, click_tracking: false });
      }
      if (req.method === "GET" && url.pathname === "/domains") {
        const limit = Number(url.searchParams.get("limit") ?? 20);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) return error(422, "validation_error", "The `limit` parameter must be between 1 and 100.");
        const all = [...domains.values()].reverse();
        return json(200, { object: "list", has_more: all.length > limit, data: all.slice(0, limit).map(({ records: _records, ...d }) => d) });
      }
      const one = url.pathname.match(/^\/domains\/([^/]+)(\/verify)?$/);
      const d = one ? domains.get(one[1]!) : undefined;
      if (one && !d) return error(404, "not_found", "Domain not found");
      if (d && req.method === "GET" && !one![2]) return json(200, { object: "domain", ...d });
      if (d && req.method === "POST" && one![2]) {
        check(d);
        return json(200, { object: "domain", id: d.id });
      }
      if (d && req.method === "DELETE" && !one![2]) {
        domains.delete(d.id);
        return json(200, { object: "domain", id: d.id, deleted: true });
      }
      return error(405, "method_not_allowed", `No route ${req.method} ${url.pathname} in the fake`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    domains,
    /** What DNS holds for `name` from now on (the next verify sees it). */
    setDns(name: string, truth: DnsTruth) {
      dns.set(name, truth);
    },
    /** Resend gave up on `name`: records still missing are `failed` at the next verify. */
    expire(name: string) {
      expired.add(name);
    },
    /** The next authenticated request answers with this error instead (queue several for several). */
    failNext(status: number, name = status >= 500 ? "application_error" : "validation_error", message = `fake failure ${status}`) {
      failures.push({ status, name, message });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
