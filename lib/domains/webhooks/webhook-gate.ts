import type { Actor } from "../../platform/actor";
import { gateAction, WEBHOOK_CHANGE_CLASS } from "../approvals";

/** What a change makes the endpoint deliver, as the approval names it (and its receipt binds it). */
export type EndpointChange = {
  change: "create" | "update";
  endpoint_id?: string;
  url?: string;
  event_types?: string[] | null;
  agent_ids?: string[] | null;
  enabled?: boolean;
};

/**
 * Makes a webhook endpoint change under `webhook_endpoint.change` taint rules
 * (lib/domains/approvals/action-gate.ts): an endpoint is where the workspace's events leave, so
 * while the agent is tainted, creating one, or changing where and what it delivers (URL, event
 * types, agent filter) or re-enabling it, needs a person's approval, spent on exactly that change.
 * A person in the web app is that person; a description-only change or a disable takes nothing
 * out and is not gated.
 */
export function gateEndpointChange<T>(actor: Actor, change: EndpointChange, approvalId: string | null, perform: () => Promise<T>): Promise<T> {
  if (actor.type !== "key") return perform();
  const leaves = change.change === "create" || change.url !== undefined || change.event_types !== undefined || change.agent_ids !== undefined || change.enabled === true;
  if (!leaves) return perform();
  const action = { type: WEBHOOK_CHANGE_CLASS, ...change };
  const what = change.change === "create" ? `Create webhook endpoint ${change.url}` : `Change webhook endpoint ${change.endpoint_id}${change.url ? ` to ${change.url}` : ""}`;
  const filters = [change.event_types !== undefined ? `events ${change.event_types?.join(", ") ?? "all"}` : null, change.agent_ids !== undefined ? `agents ${change.agent_ids?.join(", ") ?? "all"}` : null, change.enabled ? "enabled" : null].filter(Boolean);
  return gateAction(actor, { actionClass: WEBHOOK_CHANGE_CLASS, priority: 0, action, summary: `${what}${filters.length ? ` (${filters.join("; ")})` : ""}`, noun: "webhook endpoint change" }, approvalId, perform);
}
