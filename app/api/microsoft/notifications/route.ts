import { handleGraphNotificationRequest } from "@/lib/domains/calendar-sync/microsoft/notifications";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// POST /api/microsoft/notifications — Microsoft Graph change and lifecycle notifications (and the validation handshake)
export const POST = gatedRoute((req: Request) => handleGraphNotificationRequest(req));
