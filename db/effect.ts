import { AsyncLocalStorage } from "node:async_hooks";
import { sql, type SQL } from "drizzle-orm";
import { queryable } from "./transaction";
import { jsonValue } from "./row-json";
import { executeFixed } from "./prepared";

/** The stored-response record an idempotent request's one statement writes beside its change. */
export type StatementIdempotency = { apiKeyId: string; key: string; requestHash: string; expiresAt: Date };

type Scope = { capture?: StatementIdempotency; replay?: { out: unknown }; ran: boolean };
const current = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn`, whose state change is one `effect` statement, so that the statement also stores
 * the idempotency record (SPEC §2): the change and its record commit or vanish together, in one
 * round trip, with no lock held across another. Tells whether the statement ran.
 */
export async function capturingEffect<T>(idem: StatementIdempotency, fn: () => Promise<T>): Promise<{ value: T; ran: boolean }> {
  const scope: Scope = { capture: idem, ran: false };
  try {
    const value = await current.run(scope, fn);
    return { value, ran: scope.ran };
  } catch (err) {
    throw Object.assign(err instanceof Error ? err : new Error(String(err)), { effectRan: scope.ran });
  }
}

/** Runs `fn` again with its effect statement answered by the stored result: a replay touches nothing. */
export function replayingEffect<T>(out: unknown, fn: () => Promise<T>): Promise<T> {
  return current.run({ replay: { out }, ran: false }, fn);
}

/** Whether this runs as the replay of a stored statement result: its effect is answered, nothing is written. */
export const replayingEffectNow = (): boolean => Boolean(current.getStore()?.replay);

/**
 * The API door deferred into the request's first effect statement (lib/platform/api/admit-request.ts):
 * `admit` is the door's call (it answers jsonb), `admits` a condition over that answer, named
 * `d.door`. The effect runs only if the door admits, in the same statement, so a request costs
 * one round trip, and a refused one (revoked key, rate limit) changes nothing.
 */
export type DeferredDoor = { admit: SQL; admits: SQL; answer?: unknown };
const doors = new AsyncLocalStorage<DeferredDoor>();

/** Thrown by an effect whose deferred door refused the request: nothing was changed; `door.answer` says why. */
export class DoorRefusedError extends Error {
  constructor() {
    super("the API door refused the request");
  }
}

/**
 * Thrown by an idempotent effect whose deferred door found a response already stored for the
 * request's Idempotency-Key: nothing was changed, and `stored` (the door's record) is the answer
 * to replay.
 */
export class StoredResponseFoundError extends Error {
  constructor(readonly stored: Record<string, unknown>) {
    super("a response is already stored for this Idempotency-Key");
  }
}

/** The record the door found for the request's Idempotency-Key, if any (agentdraft_admit's `stored`). */
function storedIn(answer: unknown): Record<string, unknown> | null {
  const stored = (answer as { stored?: unknown } | null)?.stored;
  return stored && typeof stored === "object" ? (stored as Record<string, unknown>) : null;
}

/** Runs `fn` with the door deferred into its first effect statement (door.answer is set once one ran). */
export function withDeferredDoor<T>(door: DeferredDoor, fn: () => Promise<T>): Promise<T> {
  return doors.run(door, fn);
}

/**
 * A condition the next effect statement needs to run (a rule's absence: no taint rule names this
 * action). It rides in that statement, as the door does: when it holds, the change is made in the
 * same round trip; when it does not, nothing is changed and `EffectGuardFailedError` is thrown, so
 * the caller takes its slower path (look the rule up, then act). Once checked, it is spent.
 */
type EffectGuard = { holds: SQL; checked: boolean };
const guards = new AsyncLocalStorage<EffectGuard>();

/** Thrown by an effect whose guard did not hold: nothing was changed. */
export class EffectGuardFailedError extends Error {
  constructor() {
    super("the effect's guard did not hold");
  }
}

/**
 * Runs `fn` with `holds` guarding its first effect statement (see EffectGuard). `fn` must change
 * state through `effect` (its first statement that changes anything): one that ran none is a bug
 * in the caller, said loudly.
 */
export async function withEffectGuard<T>(holds: SQL, fn: () => Promise<T>): Promise<T> {
  const guard: EffectGuard = { holds, checked: false };
  const value = await guards.run(guard, fn);
  if (!guard.checked) throw new Error("withEffectGuard: the guarded function ran no effect statement, so its guard was never checked");
  return value;
}

/** Whether an error thrown out of `capturingEffect` came after its statement had committed. */
export const effectRan = (err: unknown): boolean => Boolean((err as { effectRan?: boolean } | null)?.effectRan);

/**
 * One state change as one statement: a select that returns one row whose column `out` is JSON
 * (a call of one of the engine's functions, db/functions). The change is an initplan of a CASE,
 * so the door and a guard riding in the same statement gate it (PostgreSQL runs it only when
 * they hold); it is never a data-modifying CTE, which would run whatever the query reads. Under
 * `capturingEffect` the statement also inserts the idempotency record holding `out`; a twin that
 * raced it fails on that record's key (23505) and rolls its whole statement back.
 */
export async function effect<T>(select: SQL): Promise<T> {
  const scope = current.getStore();
  if (scope?.replay) {
    if (scope.ran) throw new Error("an idempotent statement operation ran a second effect");
    scope.ran = true;
    const guard = guards.getStore();
    if (guard) guard.checked = true; // a replay changes nothing: there is nothing to guard
    return jsonValue<T>(scope.replay.out);
  }
  const q = await queryable();
  const idem = scope?.capture;
  if (idem && scope.ran) throw new Error("an idempotent statement operation ran a second effect");
  const door = doors.getStore();
  const guard = guards.getStore();
  const holds = guard !== undefined && !guard.checked ? guard.holds : sql`true`;
  if (guard) guard.checked = true;
  const gate = door && door.answer === undefined ? door : undefined;
  // The door's answer and the guard, each computed once (d is materialized); the change runs only
  // when the door admits and finds no stored response, and the guard holds.
  const d = gate ? sql`select ${gate.admit} as door, ${holds} as guarded` : sql`select ${holds} as guarded`;
  const go = gate ? sql`(${gate.admits} and d.guarded and jsonb_typeof(d.door->'stored') is distinct from 'object')` : sql`d.guarded`;
  const columns = gate ? sql`d.door, ${gate.admits} as admitted, d.guarded` : sql`d.guarded`;
  const change = sql`case when ${go} then (select s.out from (${select}) s) end`;
  type Row = { door?: unknown; admitted?: boolean; guarded: boolean; out?: unknown };
  const statement = idem
    ? // The change and its record together: the record's insert runs only when the change did.
      sql`
        with d as materialized (${d}),
        r as materialized (select ${change} as out from d),
        i as (
          insert into idempotency_keys (api_key_id, key, request_hash, response_status, response_headers, response_body, result, expires_at)
          select ${idem.apiKeyId}, ${idem.key}, ${idem.requestHash}, 0, '{}'::jsonb, '', r.out::jsonb, ${idem.expiresAt.toISOString()}::timestamptz
          from d, r where ${go}
        )
        select ${columns}, r.out from d, r`
    : sql`with d as materialized (${d}) select ${columns}, ${change} as out from d`;
  const row = (await executeFixed<Row>(q, statement)).rows[0];
  if (gate) {
    gate.answer = row?.door ? jsonValue(row.door) : null;
    if (!row?.admitted) throw new DoorRefusedError();
    const stored = storedIn(gate.answer);
    if (stored) throw new StoredResponseFoundError(stored);
  }
  if (!row?.guarded) throw new EffectGuardFailedError();
  if (idem) scope.ran = true;
  return jsonValue<T>(row.out ?? null);
}
