import pg from "pg";
import { and, eq, isNull, sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { auditEntries } from "../../db/schema";
import { sealBeforeRead } from "../../lib/platform/audit/seal-chain";

/**
 * Seals until every committed audit entry of this workspace is chained: waits for a sealer of
 * this workspace that is running, then seals what is left (nothing of other workspaces can hold
 * it back; the loop is for a transaction of this workspace committing meanwhile).
 */
export async function sealWorkspace(workspaceId: string, ms = 15_000): Promise<void> {
  const db = await getDb();
  const deadline = Date.now() + ms;
  for (;;) {
    await sealBeforeRead(workspaceId);
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(auditEntries)
      .where(and(eq(auditEntries.workspaceId, workspaceId), isNull(auditEntries.hash)));
    if (Number(row!.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`audit entries of ${workspaceId} still unsealed after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Keeps this workspace's audit entries unsealed until the returned release: an open transaction
 * on another connection locks the workspace's chain head (its `audit_heads` row), so a sealer of
 * the workspace (a background run) waits for the release. On PGlite there is one connection, and
 * no background sealer runs in a test: nothing to hold.
 */
export async function holdBackSealing(workspaceId: string): Promise<() => Promise<void>> {
  if (process.env.AGENTDRAFT_TEST_DB === "pglite") return async () => {};
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL_UNPOOLED ?? process.env.DATABASE_URL });
  await client.connect();
  await client.query("begin");
  await client.query("insert into audit_heads (workspace_id, seq, hash) values ($1, 0, $2) on conflict do nothing", [workspaceId, "0".repeat(64)]);
  await client.query("select 1 from audit_heads where workspace_id = $1 for update", [workspaceId]);
  return async () => {
    await client.query("rollback");
    await client.end();
  };
}
