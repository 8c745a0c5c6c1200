import type { Actor } from "../../platform/actor";
import type { PlaceHoldInput } from "../holds";
import { gateAction } from "./action-gate";

export { APPROVAL_HEADER } from "./action-gate";

export const HOLD_ACTION_CLASS = "hold.place";

/**
 * Places a hold under `hold.place` taint rules (lib/domains/approvals/action-gate.ts): a hold at or above a
 * rule's `min_priority`, asked by a tainted agent (lib/domains/approvals/actor-taint.ts), needs a person's
 * approval, spent on exactly that hold (calendars, times, priority).
 */
export function gateHold<T>(actor: Actor & { type: "key" }, input: PlaceHoldInput, approvalId: string | null, place: () => Promise<T>): Promise<T> {
  // A re-booking (issue #32) is approved as one: the approval names the event it replaces.
  const rebooks = input.rebooks_event_id ? { rebooks_event_id: input.rebooks_event_id } : {};
  const action = { type: HOLD_ACTION_CLASS, calendar_ids: [...new Set(input.calendar_ids)].sort(), start_time: input.start_time, end_time: input.end_time, priority: input.priority, ...rebooks };
  const summary = `Hold at priority ${input.priority} from ${input.start_time} to ${input.end_time}${input.rebooks_event_id ? `, re-booking event ${input.rebooks_event_id}` : ""}`;
  return gateAction(actor, { actionClass: HOLD_ACTION_CLASS, priority: input.priority, action, summary, noun: "hold", oneStatement: true }, approvalId, place);
}
