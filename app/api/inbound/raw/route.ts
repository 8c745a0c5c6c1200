import { receiveRaw } from "@/lib/domains/mail/inbound/receive-raw";
import { plainJsonRoute } from "@/lib/platform/api/plain-route";

// POST /api/inbound/raw?to=ADDRESS — raw RFC 5322 mail from any relay (Bearer INBOUND_SECRET)
export const POST = plainJsonRoute(receiveRaw);
