import { withApiKey } from "@/lib/platform/api/with-api-key";
import { streamEventsOp } from "@/lib/domains/events/operations";
import { respondWithEventStream } from "@/lib/domains/events/respond";

// A connection lasts up to EVENTS_STREAM_MAX_SECONDS (280 s by default), under this bound.
export const maxDuration = 300;
export const dynamic = "force-dynamic";

// GET /api/v1/events — Server-Sent Events of the workspace's events, resumable with Last-Event-ID
export const GET = withApiKey(streamEventsOp, async ({ req, key, query }) => respondWithEventStream(req, key, query));
