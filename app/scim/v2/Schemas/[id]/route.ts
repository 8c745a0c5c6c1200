import { scimRoute } from "@/lib/domains/scim/respond";
import { getSchema } from "@/lib/domains/scim/schema-definitions";

// GET /scim/v2/Schemas/{urn} — one schema, such as urn:ietf:params:scim:schemas:core:2.0:User
export const GET = scimRoute(async ({ base, id }) => ({ status: 200, body: getSchema(id, base) }));
