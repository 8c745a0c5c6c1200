import pg from "pg";

/**
 * A transaction left open on a connection of its own (Postgres only: PGlite has one connection,
 * on which nothing else runs while a transaction is open). `statements` run inside it, e.g.
 * `select txid_current()` (holds the server's snapshot xmin, in no workspace) or a write in some
 * workspace. Returns the rollback.
 */
export async function openTransaction(...statements: [string, unknown[]?][]): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL_UNPOOLED ?? process.env.DATABASE_URL });
  await client.connect();
  await client.query("begin");
  for (const [text, values] of statements) await client.query(text, values);
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    await client.query("rollback");
    await client.end();
  };
}
