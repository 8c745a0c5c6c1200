import { createHash } from "node:crypto";
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { transaction } from "../../db/transaction";
import { idempotencyKeys } from "../../db/schema";
import { AppError } from "../errors";
import { canonicalJson } from "../audit/canonical-json";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function validateIdempotencyKey(value: string): string {
  if (!KEY_SHAPE.test(value)) {
    throw new AppError("invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters, such as a UUID.");
  }
  return value;
}

/** What makes two requests "the same": method, path and body (JSON compared canonically). */
export function requestFingerprint(method: string, path: string, body: string): string {
  let normalised = body;
  try {
    if (body.trim()) normalised = canonicalJson(JSON.parse(body));
  } catch {
    /* not JSON: compare the bytes */
  }
  return createHash("sha256").update(`${method} ${path}\n${normalised}`).digest("hex");
}

type Stored = typeof idempotencyKeys.$inferSelect;

function replay(stored: Stored, fingerprint: string): Response {
  if (stored.requestHash !== fingerprint) {
    throw new AppError(
      "idempotency_mismatch",
      "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
    );
  }
  const headers = new Headers(stored.responseHeaders);
  headers.set("idempotent-replayed", "true");
  return new Response(stored.responseBody, { status: stored.responseStatus, headers });
}

/** Thrown inside the transaction to roll back a request that ended in a 4xx, carrying its response out. */
class RolledBack extends Error {
  constructor(readonly response: Response) {
    super("rolled back");
  }
}

const STORED_HEADERS = ["content-type", "location"];

async function snapshot(res: Response) {
  const body = await res.text();
  const headers: Record<string, string> = {};
  for (const h of STORED_HEADERS) {
    const v = res.headers.get(h);
    if (v) headers[h] = v;
  }
  return { status: res.status, headers, body };
}

/**
 * Runs a POST at most once per (API key, Idempotency-Key). The request runs in one
 * transaction that also stores its response, so "stored" and "happened" cannot disagree.
 * A transaction-scoped advisory lock marks it running: a concurrent twin gets 409 at once,
 * and a crash releases the lock with nothing stored, so a retry runs it afresh.
 * 4xx answers are stored too (replayed as they were); 5xx answers are not, so they can be retried.
 */
export async function runIdempotent(
  apiKeyId: string,
  idempotencyKey: string,
  fingerprint: string,
  execute: () => Promise<Response>,
): Promise<Response> {
  const db = await getDb();
  const live = and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, idempotencyKey), gt(idempotencyKeys.expiresAt, sql`now()`));
  const [done] = await db.select().from(idempotencyKeys).where(live);
  if (done) return replay(done, fingerprint);

  const lockKey = idempotencyLockKey(apiKeyId, idempotencyKey);
  let toStore: Awaited<ReturnType<typeof snapshot>> | undefined;
  try {
    return await transaction(async (tx) => {
      const { rows } = await tx.execute<{ locked: boolean }>(sql`select pg_try_advisory_xact_lock(${lockKey.toString()}::bigint) as locked`);
      if (!rows[0]?.locked) {
        throw new AppError("idempotency_in_progress", "A request with this Idempotency-Key is still running. Retry after it finishes.", {}, { "retry-after": "1" });
      }
      const [finished] = await tx.select().from(idempotencyKeys).where(live);
      if (finished) return replay(finished, fingerprint);
      await tx.delete(idempotencyKeys).where(
        and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, idempotencyKey), lte(idempotencyKeys.expiresAt, sql`now()`)),
      );

      const res = await execute();
      const snap = await snapshot(res);
      if (snap.status >= 400) {
        if (snap.status < 500 && snap.status !== 429) toStore = snap;
        throw new RolledBack(new Response(snap.body, { status: snap.status, headers: res.headers }));
      }
      await tx.insert(idempotencyKeys).values({
        apiKeyId,
        key: idempotencyKey,
        requestHash: fingerprint,
        responseStatus: snap.status,
        responseHeaders: snap.headers,
        responseBody: snap.body,
        expiresAt: new Date(Date.now() + IDEMPOTENCY_TTL_MS),
      });
      return new Response(snap.body, { status: snap.status, headers: res.headers });
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
    if (toStore) {
      // Nothing changed, so storing the error after the rollback is safe; a twin that ran
      // meanwhile wins the insert.
      await db
        .insert(idempotencyKeys)
        .values({
          apiKeyId,
          key: idempotencyKey,
          requestHash: fingerprint,
          responseStatus: toStore.status,
          responseHeaders: toStore.headers,
          responseBody: toStore.body,
          expiresAt: new Date(Date.now() + IDEMPOTENCY_TTL_MS),
        })
        .onConflictDoNothing();
    }
    return err.response;
  }
}

/** The advisory lock that marks a request with this key as running. */
export function idempotencyLockKey(apiKeyId: string, idempotencyKey: string): bigint {
  return createHash("sha256").update(`${apiKeyId}\0${idempotencyKey}`).digest().readBigInt64BE(0);
}

/** Deletes stored responses past their 24 hours; run by the background runner. */
export async function purgeExpiredIdempotencyKeys(): Promise<number> {
  const db = await getDb();
  const gone = await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, sql`now()`)).returning({ key: idempotencyKeys.key });
  return gone.length;
}
