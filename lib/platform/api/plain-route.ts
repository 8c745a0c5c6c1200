import { assertReadyToServe } from "../config/startup-gate";
import { problemResponse } from "./problem";
import { newRequestId } from "./request-ids";

/**
 * A route outside /api/v1 that does its own authentication (an ingest secret, a provider's
 * signature): a request id on every answer, JSON on success, an RFC 9457 problem otherwise.
 */
export function plainJsonRoute(handle: (req: Request) => Promise<unknown>) {
  return async (req: Request): Promise<Response> => {
    const requestId = newRequestId();
    try {
      await assertReadyToServe();
      return Response.json(await handle(req), { headers: { "x-request-id": requestId } });
    } catch (err) {
      return problemResponse(err, requestId, { "x-request-id": requestId });
    }
  };
}
