import { describe, expect, it } from "vitest";
// The path matcher Next.js itself applies to `headers()` sources (its own copy of path-to-regexp 6, untyped).
// @ts-expect-error no declaration file ships with Next.js's compiled copy
import { match as untypedMatch } from "next/dist/compiled/path-to-regexp";
import nextConfig, { contentSecurityPolicy, PAGE_PATHS } from "../../../next.config";

const match = untypedMatch as (path: string) => (pathname: string) => false | object;

const headersFor = async (source: string) =>
  Object.fromEntries(((await nextConfig.headers!()).find((r) => r.source === source)?.headers ?? []).map((h) => [h.key.toLowerCase(), h.value]));

describe("the web app's security headers", () => {
  it("every path gets X-Frame-Options DENY, nosniff and a same-origin referrer, in values Next.js need not compile per request", async () => {
    const headers = await headersFor("/:path*");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("same-origin");
    for (const value of Object.values(headers)) expect(value).not.toContain(":");
  });

  it("the web app's pages get a content policy that forbids framing; the API's JSON does not carry it", async () => {
    const headers = await headersFor(PAGE_PATHS);
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"]).toContain("default-src 'self'");
    expect(headers["content-security-policy"]).toContain("object-src 'none'");
    const pages = match(PAGE_PATHS);
    for (const path of ["/", "/approvals", "/approvals/apr_1", "/sign-in", "/docs/api", "/apiary"]) expect(pages(path), path).not.toBe(false);
    for (const path of ["/api/ping", "/api/v1/holds", "/api/inngest"]) expect(pages(path), path).toBe(false);
  });

  it("allows eval only in development (React Refresh)", () => {
    expect(contentSecurityPolicy(true)).toContain("'unsafe-eval'");
    expect(contentSecurityPolicy(false)).not.toContain("'unsafe-eval'");
  });
});
