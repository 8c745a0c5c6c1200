import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and resolves files relative to its own module: bundling it breaks that.
  // piscina starts its threads from its own files (and ours from lib/, through tsx): not bundled either.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws", "piscina", "mailauth"],
  poweredByHeader: false,
  // forbidden(): pages answer 403 with app/forbidden.tsx when a member's role is too low.
  experimental: { authInterrupts: true },
};

export default nextConfig;
