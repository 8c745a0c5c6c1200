import { scimRoute } from "@/lib/domains/scim/respond";
import { serviceProviderConfig } from "@/lib/domains/scim/service-provider-config";

// GET /scim/v2/ServiceProviderConfig — what this SCIM server supports (RFC 7643 §5)
export const GET = scimRoute(async () => ({ status: 200, body: serviceProviderConfig() }));
