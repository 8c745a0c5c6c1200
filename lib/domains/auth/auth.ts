import NextAuth from "next-auth";
import Passkey from "next-auth/providers/passkey";
import { getDb } from "../../../db/client";
import { env } from "../../platform/config/env";
import { secureCookies } from "../../platform/config/cookies";
import { authSecret } from "../../platform/config/auth-secret";
import { agentDraftAdapter } from "./adapter";
import { readRegistrationIntent } from "./intent-cookie";
import { currentSessionToken } from "./session-token";
import { passkeySignInAllowed } from "./sso-gate";

/**
 * Auth.js for the web app: passkeys only, database sessions. Configured lazily so that
 * importing this module (and `next build`) opens no database.
 */
export const { handlers, auth, signOut } = NextAuth(async () => {
  const e = env();
  return {
    adapter: agentDraftAdapter(await getDb(), readRegistrationIntent, currentSessionToken),
    providers: [Passkey({ relayingParty: { name: "AgentDraft" } })],
    experimental: { enableWebAuthn: true },
    secret: authSecret(e),
    trustHost: e.AUTH_TRUST_HOST ?? true,
    // Secure (and __Secure-prefixed) cookies in production, unless the app is served over plain http.
    useSecureCookies: secureCookies(),
    session: { strategy: "database", maxAge: 30 * 24 * 60 * 60, updateAge: 24 * 60 * 60 },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    callbacks: {
      // A passkey sign-in by an email whose domain requires SSO is refused (AccessDenied on the sign-in page).
      signIn: ({ user, account }) => passkeySignInAllowed(user, account as { type?: string; userId?: string } | null),
      session({ session, user }) {
        session.user.id = user.id;
        return session;
      },
    },
    logger: {
      // Auth.js warns about its experimental WebAuthn support on every request; say it once.
      warn: (code) => {
        if (code === "experimental-webauthn") return;
        console.warn(`[auth] ${code}`);
      },
    },
  };
});
