import { currentSessionToken } from "../auth";
import type { SignedInMember } from "../auth";
import { hasRole } from "../members";
import { listAgents } from "../agents";
import { isRecentlyAuthenticated } from "../passkeys";
import type { AuthorizeCheck } from "./authorize-request";
import { CONSENT_ROLE } from "./consent";

/** What each scope lets the application do, in the words the consent page shows. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  mail: "Read and send the agent's email",
  calendar: "See availability, place and change holds",
  approvals: "Ask people for approvals and wait for them",
  audit: "Read the audit trail and add notes",
  webhooks: "Manage webhook endpoints",
  handoffs: "Hand work to and from other agents",
  leases: "Take, renew and release leases on shared resources",
};

/** A client registered within this long is called new on the consent page. */
const NEW_CLIENT_MS = 24 * 3600_000;

/** The consent page's facts: who asks, where the answer goes, for which agents, and whether the passkey is fresh. */
export async function consentView(m: SignedInMember, checked: AuthorizeCheck & { ok: true }) {
  const { client, params } = checked;
  const redirect = new URL(params.redirectUri);
  const { items: agents } = await listAgents(m.workspace.id, { limit: 100 });
  return {
    clientName: client.name,
    clientId: client.clientId,
    registration: client.registration,
    isNew: Date.now() - client.createdAt.getTime() < NEW_CLIENT_MS,
    registeredAt: client.createdAt,
    redirectTarget: redirect.protocol === "http:" || redirect.protocol === "https:" ? redirect.host : `${redirect.protocol}//${redirect.host}`,
    scopes: params.scopes.map((s) => ({ name: s, description: SCOPE_DESCRIPTIONS[s] ?? s })),
    agents: agents.map((a) => ({ id: a.id, name: a.name })),
    canConsent: hasRole(m.member.role, CONSENT_ROLE),
    confirmed: await isRecentlyAuthenticated(m.user.id, await currentSessionToken()),
  };
}
