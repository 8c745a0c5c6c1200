import { scimRoute } from "@/lib/domains/scim/respond";
import { listResourceTypes } from "@/lib/domains/scim/resource-types";

// GET /scim/v2/ResourceTypes — User and Group, their endpoints and schemas (RFC 7643 §6, RFC 7644 §4)
export const GET = scimRoute(async ({ req, base }) => ({ status: 200, body: listResourceTypes(new URL(req.url), base) }));
