import { receiveRaw } from "@/lib/mail/inbound/receive-raw";
import { problemResponse } from "@/lib/api/problem";
import { newRequestId } from "@/lib/api/request-ids";

// POST /api/inbound/raw?to=ADDRESS — raw RFC 5322 mail from any relay (Bearer INBOUND_SECRET)
export async function POST(req: Request) {
  const requestId = newRequestId();
  try {
    return Response.json(await receiveRaw(req), { headers: { "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
