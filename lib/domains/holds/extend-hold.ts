import type { HoldRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { changeHold } from "./change-hold";

/** Heartbeat: a live hold lives another TTL from now. An expired one cannot be revived. */
export async function extendHold(actor: Actor, holdId: string, ttlSeconds?: number): Promise<HoldRow> {
  return (await changeHold(actor, holdId, "extend", ttlSeconds)).hold;
}
