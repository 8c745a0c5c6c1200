import { createHash } from "node:crypto";
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { getDb, type Queryable } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { capturingEffect, DoorRefusedError, effectRan, replayingEffect, StoredResponseFoundError } from "../../../db/effect";
import { constraintName, isUniqueViolation } from "../../../db/errors";
import { idempotencyKeys } from "../../../db/schema";
import { AppError } from "../errors";
import { canonicalJson } from "../crypto/canonical-json";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export const isIdempotencyKey = (value: string) => KEY_SHAPE.test(value);

export function validateIdempotencyKey(value: string): string {
  if (!isIdempotencyKey(value)) {
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

/** A stored response as the door reads it (admit-request.ts) or a query does. */
export type StoredResponse = Pick<typeof idempotencyKeys.$inferSelect, "requestHash" | "responseStatus" | "responseHeaders" | "responseBody" | "result">;

function checkFingerprint(stored: StoredResponse, fingerprint: string): void {
  if (stored.requestHash !== fingerprint) {
    throw new AppError(
      "idempotency_mismatch",
      "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
    );
  }
}

function replayed(res: Response): Response {
  const out = new Response(res.body, res);
  out.headers.set("idempotent-replayed", "true");
  return out;
}

function replay(stored: StoredResponse, fingerprint: string): Response {
  checkFingerprint(stored, fingerprint);
  return replayed(new Response(stored.responseBody, { status: stored.responseStatus, headers: new Headers(stored.responseHeaders) }));
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

type Snapshot = Awaited<ReturnType<typeof snapshot>>;
/** 4xx answers are stored (replayed as they were); 5xx and 429 are not, so they can be retried. */
const storable = (status: number) => status < 500 && status !== 429;
const expiry = () => new Date(Date.now() + IDEMPOTENCY_TTL_MS);

export type IdempotentRun = {
  apiKeyId: string;
  key: string;
  fingerprint: string;
  /** The request's work; an error it throws becomes a response through `render`. */
  execute: () => Promise<Response>;
  render: (err: unknown) => Response;
  /** What the door found stored for this key (undefined: not looked up yet). */
  stored?: StoredResponse | null;
  /**
   * The operation's state change is one `effect` statement (db/effect.ts): that statement
   * stores the record itself, in the same round trip, instead of a transaction around it all.
   */
  statement?: boolean;
  /**
   * The door deferred into the statement (with-api-key.ts), which also looks up the stored
   * response: no lookup first. Called when no statement ran the door (the request was refused
   * before its change): passes the door on its own and answers what it found stored.
   */
  admit?: () => Promise<StoredResponse | null>;
};

/**
 * Runs a POST at most once per (API key, Idempotency-Key), so "stored" and "happened" cannot
 * disagree. A one-statement operation stores its record inside its statement: a twin racing
 * it fails on the record's key, rolls back, and replays the winner. Any other runs in one
 * transaction that also stores its response, under a transaction-scoped advisory lock: a
 * concurrent twin gets 409 at once, and a crash releases the lock with nothing stored.
 */
export async function runIdempotent(run: IdempotentRun): Promise<Response> {
  if (run.admit && run.statement) return runStatement(run);
  const stored = run.stored === undefined ? await findStored(run.apiKeyId, run.key) : run.stored;
  if (stored) return replayStored(run, stored);
  return run.statement ? runStatement(run) : runTransaction(run);
}

async function replayStored(run: IdempotentRun, stored: StoredResponse): Promise<Response> {
  if (stored.responseStatus !== 0) return replay(stored, run.fingerprint);
  checkFingerprint(stored, run.fingerprint);
  return replayed(await replayingEffect(stored.result, run.execute).catch(run.render));
}

async function runStatement(run: IdempotentRun, retried = false): Promise<Response> {
  const idem = { apiKeyId: run.apiKeyId, key: run.key, requestHash: run.fingerprint, expiresAt: expiry() };
  let res: Response;
  let ran: boolean;
  try {
    ({ value: res, ran } = await capturingEffect(idem, run.execute));
  } catch (err) {
    // The deferred door refused (401, 429: the caller answers it) or found this key's response.
    if (err instanceof DoorRefusedError) throw err;
    if (err instanceof StoredResponseFoundError) return replayStored(run, err.stored as StoredResponse);
    if (isUniqueViolation(err) && constraintName(err) === RECORD_KEY) {
      // A twin committed first: replay it, or, when its record is past its 24 hours, run afresh.
      const twin = await findStored(run.apiKeyId, run.key);
      if (twin) return replayStored(run, twin);
      if (!retried) {
        await deleteExpired(await getDb(), run.apiKeyId, run.key);
        return runStatement(run, true);
      }
    }
    res = run.render(err);
    ran = effectRan(err);
  }
  if (!storable(res.status)) return res;
  if (!ran) {
    // Refused before any change (a 4xx from a read): stored afterwards, as nothing changed,
    // unless the door (on its own, when it had no statement to ride in) finds a stored answer.
    const earlier = run.admit ? await run.admit() : null;
    if (earlier) return replayStored(run, earlier);
    const snap = await snapshot(res);
    await storeSnapshot(await getDb(), run, snap);
    return new Response(snap.body, { status: snap.status, headers: res.headers });
  }
  if (res.status < 400) return res;
  // A refusal the statement decided (hold_conflict): keep the rendered problem, so a replay
  // answers the same bytes (its request id included). Nothing is locked any more.
  const snap = await snapshot(res);
  const db = await getDb();
  await db
    .update(idempotencyKeys)
    .set({ responseStatus: snap.status, responseHeaders: snap.headers, responseBody: snap.body, result: null })
    .where(and(eq(idempotencyKeys.apiKeyId, run.apiKeyId), eq(idempotencyKeys.key, run.key)));
  return new Response(snap.body, { status: snap.status, headers: res.headers });
}

async function runTransaction(run: IdempotentRun): Promise<Response> {
  const lockKey = idempotencyLockKey(run.apiKeyId, run.key);
  let toStore: Snapshot | undefined;
  try {
    return await transaction(async (tx) => {
      const { rows } = await tx.execute<{ locked: boolean }>(sql`select pg_try_advisory_xact_lock(${lockKey.toString()}::bigint) as locked`);
      if (!rows[0]?.locked) {
        throw new AppError("idempotency_in_progress", "A request with this Idempotency-Key is still running. Retry after it finishes.", {}, { "retry-after": "1" });
      }
      const [finished] = await tx.select().from(idempotencyKeys).where(live(run.apiKeyId, run.key));
      if (finished) return replay(finished, run.fingerprint);
      await deleteExpired(tx, run.apiKeyId, run.key);

      let opened = false;
      const res = await run.execute().catch((err: unknown) => {
        opened = opensForCaller(err);
        return run.render(err);
      });
      const snap = await snapshot(res);
      if (snap.status >= 400 && !opened) {
        if (storable(snap.status)) toStore = snap;
        throw new RolledBack(new Response(snap.body, { status: snap.status, headers: res.headers }));
      }
      await storeSnapshot(tx, run, snap);
      return new Response(snap.body, { status: snap.status, headers: res.headers });
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
    // Nothing changed, so storing the error after the rollback is safe; a twin that ran
    // meanwhile wins the insert.
    if (toStore) await storeSnapshot(await getDb(), run, toStore);
    return err.response;
  }
}

/**
 * A refusal that opened something for the caller to use next, which must outlive it: 403
 * `approval_required` names the approval a policy opened (lib/domains/approvals/action-gate.ts). Its
 * transaction commits, with the refusal stored, instead of rolling back.
 */
const opensForCaller = (err: unknown) => err instanceof AppError && err.code === "approval_required";

const RECORD_KEY = "idempotency_keys_api_key_id_key_pk";
const live = (apiKeyId: string, key: string) =>
  and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key), gt(idempotencyKeys.expiresAt, sql`now()`));

async function findStored(apiKeyId: string, key: string): Promise<StoredResponse | null> {
  const db = await getDb();
  const [row] = await db.select().from(idempotencyKeys).where(live(apiKeyId, key));
  return row ?? null;
}

async function deleteExpired(q: Queryable, apiKeyId: string, key: string): Promise<void> {
  await q
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key), lte(idempotencyKeys.expiresAt, sql`now()`)));
}

async function storeSnapshot(q: Queryable, run: IdempotentRun, snap: Snapshot): Promise<void> {
  await q
    .insert(idempotencyKeys)
    .values({
      apiKeyId: run.apiKeyId,
      key: run.key,
      requestHash: run.fingerprint,
      responseStatus: snap.status,
      responseHeaders: snap.headers,
      responseBody: snap.body,
      expiresAt: expiry(),
    })
    .onConflictDoNothing();
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
