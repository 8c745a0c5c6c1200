import { sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { AppError } from "../errors";
import { newId } from "../ids";

/**
 * Takes one of the key's open-stream slots (the database's agentdraft_open_event_stream, one
 * statement that serialises a key's admissions): 429 beyond `max`. A slot lives `ttlSeconds`
 * unless renewed, so the slots of a server that died free themselves.
 */
export async function openStreamSlot(keyId: string, max: number, ttlSeconds: number): Promise<string> {
  const slot = newId("eventStream");
  const db = await getDb();
  const { rows } = await db.execute<{ opened: boolean }>(sql`select agentdraft_open_event_stream(${keyId}, ${slot}, ${max}, ${ttlSeconds}) as opened`);
  if (!rows[0]?.opened) {
    throw new AppError(
      "rate_limited",
      `This API key already has ${max} open event streams (the most allowed). Close one, or retry in ${ttlSeconds} s.`,
      { limit: max },
      { "retry-after": String(ttlSeconds) },
    );
  }
  return slot;
}

/** Extends the slot; false when the key was revoked meanwhile or the slot lapsed (the stream must end). */
export async function renewStreamSlot(slot: string, ttlSeconds: number): Promise<boolean> {
  const db = await getDb();
  const { rows } = await db.execute<{ ok: number }>(sql`
    update event_stream_slots s set expires_at = clock_timestamp() + make_interval(secs => ${ttlSeconds})
    from api_keys k where s.id = ${slot} and k.id = s.key_id and k.revoked_at is null returning 1 as ok`);
  return rows.length > 0;
}

export async function closeStreamSlot(slot: string): Promise<void> {
  const db = await getDb();
  await db.execute(sql`delete from event_stream_slots where id = ${slot}`);
}
