import { scimRoute } from "@/lib/domains/scim/respond";
import { parseListParams } from "@/lib/domains/scim/list-params";
import { createUser, listUsers } from "@/lib/domains/scim/users";

// GET /scim/v2/Users?filter=userName eq "…"&startIndex=1&count=100 — the workspace's provisioned people
export const GET = scimRoute(async ({ req, actor, base }) => ({ status: 200, body: await listUsers(actor, parseListParams(new URL(req.url)), base) }));

// POST /scim/v2/Users — provision a person (lib/domains/scim/users.ts)
export const POST = scimRoute(async ({ actor, base, body }) => ({ status: 201, body: await createUser(actor, await body(), base) }));
