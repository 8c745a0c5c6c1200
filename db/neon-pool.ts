import type { Pool } from "@neondatabase/serverless";

/** What the Neon pool needs from the database configuration. */
export type NeonPoolConfig = { url: string; poolMax: number; idleTimeoutMs: number; wsProxy?: string };

/**
 * Neon's serverless Pool (Postgres over WebSocket). Idle connections close after a short
 * timeout: a Vercel instance freezes between requests, and a connection left open across a
 * freeze is dead when it thaws. On Vercel the pool is attached to the function's lifecycle
 * (`attachDatabasePool`), which keeps the instance alive until idle clients are closed.
 */
export async function openNeonPool(config: NeonPoolConfig): Promise<Pool> {
  const { Pool, neonConfig } = await import("@neondatabase/serverless");
  if (typeof WebSocket === "undefined") neonConfig.webSocketConstructor = (await import("ws")).default;
  if (config.wsProxy) {
    // A local WebSocket-to-TCP proxy (Neon's documented local-development setup): plain ws, no pipelining.
    const proxy = config.wsProxy;
    neonConfig.wsProxy = (host, port) => `${proxy.replace(/\/$/, "")}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
  const pool = new Pool({ connectionString: config.url, max: config.poolMax, idleTimeoutMillis: config.idleTimeoutMs });
  pool.on("error", (err: Error) => console.error("[db] idle client error:", err.message));
  if (process.env.VERCEL) {
    const { attachDatabasePool } = await import("@vercel/functions");
    attachDatabasePool(pool);
  }
  return pool;
}
