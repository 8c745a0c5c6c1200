import { callerAddress, jsonEndpoint, preflight } from "@/lib/domains/oauth/endpoint";
import { registerClient, registrationResponse } from "@/lib/domains/oauth/register-client";

// POST /api/oauth/register — RFC 7591 Dynamic Client Registration (public clients)
export const POST = jsonEndpoint(async (body, req) => ({ body: registrationResponse(await registerClient(body, callerAddress(req))), status: 201 }));
export const OPTIONS = preflight;
