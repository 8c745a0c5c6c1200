import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listNotificationChannelsOp } from "@/lib/domains/notifications/operations";
import { listChannels } from "@/lib/domains/notifications/channels";
import { serializeChannel } from "@/lib/domains/notifications/serialize";

// GET /api/v1/notification-channels — list notification channels (never their secrets)
export const GET = withApiKey(listNotificationChannelsOp, async ({ actor, query }) => {
  const { items, hasMore } = await listChannels(actor, query);
  return list(items.map(serializeChannel), hasMore);
});
