import { scimRoute } from "@/lib/domains/scim/respond";
import { listSchemas } from "@/lib/domains/scim/schema-definitions";

// GET /scim/v2/Schemas — the User and Group schemas this server serves (RFC 7643 §7, RFC 7644 §4)
export const GET = scimRoute(async ({ req, base }) => ({ status: 200, body: listSchemas(new URL(req.url), base) }));
