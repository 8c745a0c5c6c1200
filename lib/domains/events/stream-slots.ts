import { sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";

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

/**
 * Takes one of a member's live-channel slots (the web app's /api/live) for this session: 429
 * beyond `max` (agentdraft_open_live_stream, serialised per member); 401 when the session ended
 * or the member was removed meanwhile.
 */
export async function openLiveSlot(member: { memberId: string; sessionToken: string }, max: number, ttlSeconds: number): Promise<string> {
  const slot = newId("eventStream");
  const db = await getDb();
  const { rows } = await db.execute<{ out: string }>(sql`select agentdraft_open_live_stream(${member.memberId}, ${member.sessionToken}, ${slot}, ${max}, ${ttlSeconds}) as out`);
  const out = rows[0]?.out;
  if (out === "signed_out") throw new AppError("unauthorized", "Your session ended: sign in again to follow live changes.");
  if (out !== "opened") {
    throw new AppError("rate_limited", `You already have ${max} live pages open (the most allowed). Close a tab, or reload in ${ttlSeconds} s.`, { limit: max }, { "retry-after": String(ttlSeconds) });
  }
  return slot;
}

/** The slot's owner still may read: its key is not revoked, or its member and session still exist. */
const ownerStillAllowed = sql`(s.key_id is null or exists (select 1 from api_keys k where k.id = s.key_id and k.revoked_at is null))
  and (s.session_token is null or exists (select 1 from sessions x where x.session_token = s.session_token and x.expires > clock_timestamp()))`;

/** Extends the slot; false when the key was revoked, the member removed or the session ended meanwhile, or the slot lapsed (the stream must end). */
export async function renewStreamSlot(slot: string, ttlSeconds: number): Promise<boolean> {
  const db = await getDb();
  const { rows } = await db.execute<{ ok: number }>(sql`
    update event_stream_slots s set expires_at = clock_timestamp() + make_interval(secs => ${ttlSeconds})
    where s.id = ${slot} and ${ownerStillAllowed} returning 1 as ok`);
  return rows.length > 0;
}

/** Whether the stream may go on (a read, checked every few seconds between heartbeats): as renewStreamSlot, without writing. */
export async function streamSlotAllowed(slot: string): Promise<boolean> {
  const db = await getDb();
  const { rows } = await db.execute<{ ok: number }>(sql`select 1 as ok from event_stream_slots s where s.id = ${slot} and ${ownerStillAllowed}`);
  return rows.length > 0;
}

export async function closeStreamSlot(slot: string): Promise<void> {
  const db = await getDb();
  await db.execute(sql`delete from event_stream_slots where id = ${slot}`);
}
