import pg from "pg";
import { and, eq, isNull, sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { auditEntries } from "../../db/schema";
import { sealAuditChain } from "../../lib/audit/seal-chain";

/**
 * Seals until every committed audit entry of this workspace is chained. One sealAuditChain() is
 * not enough on the shared Postgres database: while another file's sealer holds the lock it
 * returns at once, and another file's open transaction holds back what may be sealed.
 */
export async function sealWorkspace(workspaceId: string, ms = 15_000): Promise<void> {
  const db = await getDb();
  const deadline = Date.now() + ms;
  for (;;) {
    await sealAuditChain();
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
 * Keeps audit entries written from now on unsealed by anyone until the returned release: an open
 * transaction with an id holds the snapshot's xmin, and sealers chain only entries older than it.
 * On PGlite each file has its own database, so no other file's sealer can run: nothing to hold.
 */
export async function holdBackSealing(): Promise<() => Promise<void>> {
  if (process.env.AGENTDRAFT_TEST_DB === "pglite") return async () => {};
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL_UNPOOLED ?? process.env.DATABASE_URL });
  await client.connect();
  await client.query("begin");
  await client.query("select pg_current_xact_id()");
  return async () => {
    await client.query("rollback");
    await client.end();
  };
}
