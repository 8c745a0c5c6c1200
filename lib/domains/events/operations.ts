import { defineOperation } from "../../platform/api/operation";
import { streamEventsQuery, streamedEventSchema } from "./schemas";

export const streamEventsOp = defineOperation({
  method: "GET",
  path: "/v1/events",
  operationId: "streamEvents",
  summary: "Stream events live (Server-Sent Events), the same as webhooks carry",
  description:
    "One SSE block per event (`id`, `event`: the type, `data`: the webhook body), oldest first, in the order they committed. " +
    "Send `Last-Event-ID` (or `after`) to resume exactly after the last event you processed: nothing is skipped or repeated, across disconnects and server restarts. A position past the stream's head (never sent by this server) is 400 with the head in `head`. " +
    "A key receives the types its scopes allow (mail: email.*; calendar: hold.*, event.*, calendar.*; approvals: approval.*); an agent-bound key only its agent's events. " +
    "Heartbeat comments every 15 s; the server ends a connection after about 280 s and the client reconnects. At most 5 open streams per key (429 beyond).",
  tag: "Events",
  query: streamEventsQuery,
  responses: { 200: { description: "An event stream", schema: streamedEventSchema, contentType: "text/event-stream" } },
});
