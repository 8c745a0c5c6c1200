import { MAX_COUNT } from "./list-params";

/** What this SCIM server supports (RFC 7643 §5): PATCH, filters (eq and and, MAX_COUNT results a page), no bulk, sort, ETags or password changes. */
export const serviceProviderConfig = () => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    { type: "oauthbearertoken", name: "Bearer token", description: "The workspace's SCIM token (ad_scim_…), created under Settings → SCIM provisioning.", primary: true },
  ],
  meta: { resourceType: "ServiceProviderConfig" },
});
