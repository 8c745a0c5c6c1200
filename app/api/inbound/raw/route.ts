import { receiveRaw } from "@/lib/mail/inbound/receive-raw";
import { plainJsonRoute } from "@/lib/api/plain-route";

// POST /api/inbound/raw?to=ADDRESS — raw RFC 5322 mail from any relay (Bearer INBOUND_SECRET)
export const POST = plainJsonRoute(receiveRaw);
