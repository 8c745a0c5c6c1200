import type { NextConfig } from "next";

/**
 * The web app's content policy: everything from this origin only, no framing by anyone
 * (clickjacking an approval), no plugins, no <base> tricks. Inline scripts are allowed because
 * Next.js bootstraps pages with them; development also needs eval for React Refresh.
 */
export function contentSecurityPolicy(dev = process.env.NODE_ENV !== "production"): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
  ].join("; ");
}

/** On every response, the API's included: no framing, no sniffing, no referrer to other sites. */
export const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
];

/**
 * The content policy goes on the web app's paths, not the API's JSON. Next.js compiles a header
 * value that contains a colon (`data:`, `blob:`) as a path template on every request it applies
 * to: about 2% of the server's CPU per API request (bench:cpu), for a header no JSON answer uses.
 */
export const PAGE_HEADERS = [{ key: "Content-Security-Policy", value: contentSecurityPolicy() }];
export const PAGE_PATHS = "/:path((?!api/).*)";

const nextConfig: NextConfig = {
  // PGlite ships WASM and resolves files relative to its own module: bundling it breaks that.
  // piscina starts its threads from its own files (and ours from lib/, through tsx): not bundled either.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws", "piscina", "mailauth"],
  // On Vercel the embedded database never runs (the start-up checks require DATABASE_URL there):
  // leaving PGlite's 19 MB of WASM out of every function's bundle shortens each cold start.
  outputFileTracingExcludes: process.env.VERCEL ? { "*": ["node_modules/@electric-sql/pglite/**"] } : {},
  // The mail parse worker is started by file name (piscina), which no tracer can follow: the build
  // bundles it whole into build/parse-worker.mjs (bin/build-parse-worker.mjs), and every server
  // function carries it (mail is parsed on receipt, on sending, and when an approval releases it).
  outputFileTracingIncludes: { "/**": ["./build/parse-worker.mjs"] },
  // .next/standalone: the traced server alone, with only the packages it loads; CI starts it and
  // smoke-tests it (.ci/artifact-smoke.mjs), so what a deployment lacks fails here first.
  output: "standalone",
  poweredByHeader: false,
  // forbidden(): pages answer 403 with app/forbidden.tsx when a member's role is too low.
  // BENCH_NO_MINIFY=1 at build time keeps server code readable in CPU profiles (bench/README.md).
  experimental: { authInterrupts: true, ...(process.env.BENCH_NO_MINIFY ? { serverMinification: false } : {}) },
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: PAGE_PATHS, headers: PAGE_HEADERS },
    ];
  },
};

export default nextConfig;
