import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listCalendarOrphansOp } from "@/lib/domains/calendar-sync/orphan-operations";
import { listOrphans, serializeOrphan } from "@/lib/domains/calendar-sync/orphans";

// GET /api/v1/calendar-orphans?calendar_id&status — orphans in linked calendars, newest first
export const GET = withApiKey(listCalendarOrphansOp, async ({ key, query }) => {
  const { items, hasMore } = await listOrphans(key.workspaceId, query);
  return list(items.map(serializeOrphan), hasMore);
});
