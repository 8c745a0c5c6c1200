// The public entry of lib/domains/sso: what another domain may use of it (a domain never reaches into another's files).
// SSO per workspace, by OpenID Connect or SAML 2.0 (docs/sso.md): app/sso/** and the settings page import the files they serve directly.
export { ssoRequiredForEmail } from "./domains";
