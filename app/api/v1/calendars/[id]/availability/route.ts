import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { availabilityOp } from "@/lib/domains/calendars/operations";
import { availability } from "@/lib/domains/calendars/availability";

// GET /api/v1/calendars/{id}/availability?from&to — free/busy
export const GET = withApiKey(availabilityOp, async ({ key, params, query }) =>
  json(await availability(key.workspaceId, params.id!, new Date(query.from), new Date(query.to))),
);
