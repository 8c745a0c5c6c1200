import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and resolves files relative to its own module: bundling it breaks that.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws"],
  poweredByHeader: false,
};

export default nextConfig;
