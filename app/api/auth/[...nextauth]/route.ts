import { NextRequest } from "next/server";
import { handlers } from "@/lib/domains/auth/auth";
import { guardWebAuthnOptions } from "@/lib/domains/auth/webauthn-options-guard";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// Auth.js endpoints: passkey options, callbacks, session, sign-out. The passkey-options
// endpoint never tells whether an account exists for an email (lib/domains/auth/webauthn-options-guard.ts).
export const POST = gatedRoute(handlers.POST);
export const GET = gatedRoute(async (req: NextRequest) => {
  const guarded = await guardWebAuthnOptions(req);
  return handlers.GET(guarded === req ? req : new NextRequest(guarded));
});
