import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { availabilityOp } from "@/lib/calendars/operations";
import { availability } from "@/lib/calendars/availability";

// GET /api/v1/calendars/{id}/availability?from&to — free/busy
export const GET = withApiKey(availabilityOp, async ({ key, params, query }) =>
  json(await availability(key.workspaceId, params.id!, new Date(query.from), new Date(query.to))),
);
