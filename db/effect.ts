import { AsyncLocalStorage } from "node:async_hooks";
import { sql, type SQL } from "drizzle-orm";
import { queryable } from "./transaction";
import { jsonValue } from "./row-json";

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

/** Whether an error thrown out of `capturingEffect` came after its statement had committed. */
export const effectRan = (err: unknown): boolean => Boolean((err as { effectRan?: boolean } | null)?.effectRan);

/**
 * One state change as one statement: `with <ctes> <select>`, where the select returns one row
 * whose column `out` is JSON. Under `capturingEffect` the statement also inserts the
 * idempotency record holding `out`; a twin that raced it fails on that record's key (23505)
 * and rolls its whole statement back.
 */
export async function effect<T>(select: SQL, ctes?: SQL): Promise<T> {
  const scope = current.getStore();
  if (scope?.replay) {
    if (scope.ran) throw new Error("an idempotent statement operation ran a second effect");
    scope.ran = true;
    return jsonValue<T>(scope.replay.out);
  }
  const q = await queryable();
  const idem = scope?.capture;
  if (!idem) {
    const { rows } = await q.execute<{ out: unknown }>(ctes ? sql`with ${ctes} ${select}` : select);
    return jsonValue<T>(rows[0]?.out ?? null);
  }
  if (scope.ran) throw new Error("an idempotent statement operation ran a second effect");
  const { rows } = await q.execute<{ out: unknown }>(sql`
    with ${ctes ? sql`${ctes}, ` : sql``}r as (${select}),
    i as (
      insert into idempotency_keys (api_key_id, key, request_hash, response_status, response_headers, response_body, result, expires_at)
      values (${idem.apiKeyId}, ${idem.key}, ${idem.requestHash}, 0, '{}'::jsonb, '', (select out from r)::jsonb, ${idem.expiresAt.toISOString()}::timestamptz)
    )
    select out from r`);
  scope.ran = true;
  return jsonValue<T>(rows[0]?.out ?? null);
}
