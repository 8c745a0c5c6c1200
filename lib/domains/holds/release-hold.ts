import type { HoldRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { changeHold } from "./change-hold";

/** Gives the time back. Releasing only frees time, so it needs no calendar lock. Idempotent. */
export async function releaseHold(actor: Actor, holdId: string): Promise<HoldRow> {
  return (await changeHold(actor, holdId, "release")).hold;
}
