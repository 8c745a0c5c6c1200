import { AsyncLocalStorage } from "node:async_hooks";
import { getDb, type Queryable, type Transaction } from "./client";

// The transaction a request runs in, if any (an idempotent POST runs whole in one, so its
// state change and its stored response commit together), and what to do once it commits.
type Scope = { tx: Transaction; afterCommit: (() => unknown)[] };
const current = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` in a transaction. Inside a request's transaction it becomes a savepoint of that
 * transaction, so a business rule behaves the same whether or not the caller wrapped it.
 * Callbacks registered with `afterCommit` run once the outermost transaction has committed.
 */
export async function transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
  const outer = current.getStore();
  if (outer) return outer.tx.transaction(fn);
  const db = await getDb();
  const scope: Scope = { tx: undefined as unknown as Transaction, afterCommit: [] };
  const result = await db.transaction((tx) => {
    scope.tx = tx;
    return current.run(scope, () => fn(tx));
  });
  await runHooks(scope.afterCommit);
  return result;
}

/**
 * Runs `fn` after the open transaction commits (never if it rolls back), or at once when no
 * transaction is open (a single statement has committed already): then the returned promise
 * is its end, for a caller that must not answer before it. For side effects that only say
 * "look now" (waking background work): a failure is logged, never thrown.
 */
export function afterCommit(fn: () => unknown): Promise<void> {
  const scope = current.getStore();
  if (!scope) return runHooks([fn]);
  scope.afterCommit.push(fn);
  return Promise.resolve();
}

async function runHooks(hooks: (() => unknown)[]): Promise<void> {
  if (hooks.length === 0) return;
  const results = await Promise.allSettled(hooks.map(async (h) => h()));
  for (const r of results) if (r.status === "rejected") console.error("[db] after-commit hook failed:", r.reason);
}

/**
 * The handle to read with: the open transaction if there is one (on PGlite, the only
 * connection belongs to it: reading beside it would wait forever), else the database.
 */
export async function queryable(): Promise<Queryable> {
  return current.getStore()?.tx ?? (await getDb());
}
