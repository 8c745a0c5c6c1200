import { scimRoute } from "@/lib/domains/scim/respond";
import { parseListParams } from "@/lib/domains/scim/list-params";
import { createGroup, listGroups } from "@/lib/domains/scim/groups";

// GET /scim/v2/Groups?filter=displayName eq "…"&excludedAttributes=members — the workspace's groups
export const GET = scimRoute(async ({ req, actor, base }) => ({ status: 200, body: await listGroups(actor, parseListParams(new URL(req.url)), base) }));

// POST /scim/v2/Groups — a group; agentdraft-admin/-approver/-viewer set roles (lib/domains/scim/roles.ts)
export const POST = scimRoute(async ({ actor, base, body }) => ({ status: 201, body: await createGroup(actor, await body(), base) }));
