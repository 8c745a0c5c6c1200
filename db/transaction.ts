import { AsyncLocalStorage } from "node:async_hooks";
import { getDb, type Queryable, type Transaction } from "./client";

// The transaction a request runs in, if any (an idempotent POST runs whole in one, so its
// state change and its stored response commit together).
const current = new AsyncLocalStorage<Transaction>();

/**
 * Runs `fn` in a transaction. Inside a request's transaction it becomes a savepoint of that
 * transaction, so a business rule behaves the same whether or not the caller wrapped it.
 */
export async function transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
  const outer = current.getStore();
  if (outer) return outer.transaction(fn);
  const db = await getDb();
  return db.transaction((tx) => current.run(tx, () => fn(tx)));
}

/**
 * The handle to read with: the open transaction if there is one (on PGlite, the only
 * connection belongs to it: reading beside it would wait forever), else the database.
 */
export async function queryable(): Promise<Queryable> {
  return current.getStore() ?? (await getDb());
}
