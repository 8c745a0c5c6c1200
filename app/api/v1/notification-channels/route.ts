import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { listNotificationChannelsOp } from "@/lib/notifications/operations";
import { listChannels } from "@/lib/notifications/channels";
import { serializeChannel } from "@/lib/notifications/serialize";

// GET /api/v1/notification-channels — list notification channels (never their secrets)
export const GET = withApiKey(listNotificationChannelsOp, async ({ actor, query }) => {
  const { items, hasMore } = await listChannels(actor, query);
  return list(items.map(serializeChannel), hasMore);
});
