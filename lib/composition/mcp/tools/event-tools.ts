import { z } from "zod";
import { EVENT_TYPES } from "../../../platform/events/emit-event";
import { waitForEvents } from "../../../domains/events/wait-for-events";
import { READ_ONLY, defineTool } from "../define-tool";

export const waitForEventsTool = defineTool({
  name: "wait_for_events",
  title: "Wait for events",
  description:
    "Long-poll the workspace's events (the same as webhooks carry: email.received, hold.preempted, approval.resolved...): returns as soon as " +
    "there are events after `after`, or after wait_seconds (at most 30) with none. Pass the returned `next` as `after` on the next call to " +
    "miss nothing and see nothing twice. Without `after`, waits for events from now on. A key sees the types its scopes allow, an agent-bound key only its agent's.",
  input: {
    after: z.string().max(41).optional().describe("the `next` of the previous call (or an event's `position`)"),
    types: z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length).optional().describe("only these event types"),
    wait_seconds: z.number().int().min(1).max(30).default(25).describe("how long to wait for an event, 1-30 seconds"),
    limit: z.number().int().min(1).max(100).default(50).describe("most events to return at once"),
  },
  annotations: READ_ONLY,
  run: ({ key }, { after, types, wait_seconds, limit }) => waitForEvents(key, { after, types, waitSeconds: wait_seconds, limit }),
});

export const EVENT_TOOLS = [waitForEventsTool] as const;
