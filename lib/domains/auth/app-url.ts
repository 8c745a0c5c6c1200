import { publicOrigin } from "../../platform/config/public-url";

/**
 * The web app's origin for links (invitations, OAuth callbacks): the deployment's public URL,
 * derived once for requests and background jobs alike (lib/platform/config/public-url.ts). Not the
 * request's Host header: a link must not depend on which name a request happened to use.
 */
export async function appUrl(): Promise<string> {
  return publicOrigin();
}
