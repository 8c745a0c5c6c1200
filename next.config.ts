import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and resolves files relative to its own module: bundling it breaks that.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws"],
  poweredByHeader: false,
  // forbidden(): pages answer 403 with app/forbidden.tsx when a member's role is too low.
  experimental: { authInterrupts: true },
};

export default nextConfig;
