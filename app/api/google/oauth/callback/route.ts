import { NextResponse, type NextRequest } from "next/server";
import { currentMember } from "@/lib/domains/auth/current-member";
import { completeGoogleConnect } from "@/lib/domains/calendar-sync/google/connections";
import { takeGoogleOAuthCookie } from "@/lib/domains/calendar-sync/google/oauth-cookie";
import { actionError } from "@/lib/domains/auth/member-action";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// GET /api/google/oauth/callback?code&state — Google sends the browser back here after consent
export const GET = gatedRoute(async (req: NextRequest) => {
  const back = (params: Record<string, string>) => NextResponse.redirect(new URL(`/google?${new URLSearchParams(params)}`, req.nextUrl));
  const m = await currentMember();
  if (!m) return NextResponse.redirect(new URL("/sign-in", req.nextUrl));
  const q = req.nextUrl.searchParams;
  try {
    const connection = await completeGoogleConnect(m.member, { cookie: await takeGoogleOAuthCookie(), state: q.get("state"), code: q.get("code"), error: q.get("error") });
    return back({ connected: connection.googleEmail });
  } catch (err) {
    const state = actionError(err);
    return back({ error: state && !state.ok ? state.error : "Could not connect Google." });
  }
});
