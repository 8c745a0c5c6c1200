import { assertReadyToServe } from "../config/startup-gate";
import { problemResponse } from "./problem";
import { newRequestId } from "./request-ids";

/** The 503 problem when this instance cannot serve (start-up checks, lib/platform/config/startup-gate.ts), else null. */
export async function startupRefusal(): Promise<Response | null> {
  try {
    await assertReadyToServe();
    return null;
  } catch (err) {
    const requestId = newRequestId();
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}

/** A route handler that answers the start-up problem instead of running while there is one. */
export function gatedRoute<A extends unknown[]>(handler: (...args: A) => Response | Promise<Response>) {
  return async (...args: A): Promise<Response> => (await startupRefusal()) ?? handler(...args);
}
