import https from "node:https";
import type { LookupFunction } from "node:net";
import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { oauthClients, type OAuthClientRow } from "../../../db/schema";
import { env } from "../../platform/config/env";
import { newId } from "../../platform/ids";
import { takeToken } from "../../platform/api/rate-limit";
import { checkDestination, parseAllowlist, type Allowlist, type Resolver, systemResolver } from "../../platform/outbound/ssrf-guard";
import { checkClientMetadata } from "./register-client";
import { redirectOrigins } from "./redirect-uris";

/** A metadata document is small (the draft suggests 5 KB) and must answer fast. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** A document is fetched again when the stored copy is older than this. */
export const DOCUMENT_MAX_AGE_MS = 24 * 3600_000;
/** Fetches are unauthenticated work: bounded for the whole deployment. */
const FETCH_LIMITS = { rate: 1, burst: 30 };

export type FetchOptions = { allow?: Allowlist; resolve?: Resolver; ca?: string | Buffer };

/** Whether `clientId` is a Client ID Metadata Document URL: https with a path (draft-ietf-oauth-client-id-metadata-document). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (clientId.length > 2000 || !clientId.startsWith("https://")) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== "/" && !url.hash && !url.username && !url.password && url.href === clientId;
  } catch {
    return false;
  }
}

/**
 * GETs a client's metadata document through the SSRF guard (the connection goes to the one
 * checked address; private, loopback and link-local addresses are refused unless allowlisted
 * in WEBHOOK_ALLOWED_HOSTS), https only, no redirects, within 5 s and 5 KiB, and checks it:
 * JSON whose `client_id` is its own URL, with redirect URIs and fields as registration requires.
 */
export async function fetchClientMetadata(clientId: string, opts: FetchOptions = {}): Promise<ReturnType<typeof checkClientMetadata>> {
  const url = new URL(clientId);
  const address = await checkDestination(url, opts.allow ?? parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS), opts.resolve ?? systemResolver);
  const text = await new Promise<string>((resolve, reject) => {
    const lookup = ((_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => (o?.all ? cb(null, [address]) : cb(null, address.address, address.family))) as unknown as LookupFunction;
    const req = https.request(url, { method: "GET", headers: { accept: "application/json", "user-agent": "AgentDraft-OAuth/1" }, lookup, agent: false, ca: opts.ca, timeout: DOCUMENT_TIMEOUT_MS }, (res) => {
      if (res.statusCode !== 200) {
        res.destroy();
        return reject(new Error(`the document answered HTTP ${res.statusCode} (redirects are not followed)`));
      }
      const chunks: Buffer[] = [];
      let seen = 0;
      res.on("data", (c: Buffer) => {
        seen += c.length;
        if (seen > MAX_DOCUMENT_BYTES) {
          res.destroy();
          reject(new Error(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`));
        } else chunks.push(c);
      });
      res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      res.on("error", reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${DOCUMENT_TIMEOUT_MS} ms`)), DOCUMENT_TIMEOUT_MS);
    req.on("close", () => clearTimeout(timer));
    req.on("error", reject);
    req.end();
  });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error("the document is not JSON");
  }
  if ((body as { client_id?: unknown })?.client_id !== clientId) throw new Error("the document's client_id is not its own URL");
  return checkClientMetadata(body);
}

/**
 * The client a metadata-document URL names: the stored copy while it is fresh, else fetched
 * (rate limited) and stored. Null when it cannot be fetched or is not acceptable, with why.
 */
export async function resolveMetadataClient(clientId: string, opts: FetchOptions = {}): Promise<{ client: OAuthClientRow } | { problem: string }> {
  const q = await queryable();
  const [stored] = await q.select().from(oauthClients).where(sql`${oauthClients.clientId} = ${clientId}`);
  if (stored && stored.fetchedAt && Date.now() - stored.fetchedAt.getTime() < DOCUMENT_MAX_AGE_MS) return { client: stored };
  if (!(await takeToken("oauth-metadata-fetch", FETCH_LIMITS)).allowed) return { problem: "Too many client metadata documents fetched just now; try again in a minute." };
  let checked: ReturnType<typeof checkClientMetadata>;
  try {
    checked = await fetchClientMetadata(clientId, opts);
  } catch (err) {
    return { problem: `The client's metadata document at ${clientId} could not be used: ${(err as Error).message}.` };
  }
  const values = { name: checked.name, redirectUris: checked.redirectUris, origins: redirectOrigins(checked.redirectUris), metadata: checked.metadata, fetchedAt: new Date() };
  const [row] = await q
    .insert(oauthClients)
    .values({ id: newId("oauthClient"), clientId, registration: "metadata_document", ...values })
    .onConflictDoUpdate({ target: oauthClients.clientId, set: values })
    .returning();
  return { client: row! };
}
