import { NextResponse, type NextRequest } from "next/server";
import { currentMember } from "@/lib/domains/auth/current-member";
import { completeMicrosoftConnect } from "@/lib/domains/calendar-sync/microsoft/calendar-sync";
import { takeMicrosoftOAuthCookie } from "@/lib/domains/calendar-sync/microsoft/oauth-cookie";
import { actionError } from "@/lib/domains/auth/member-action";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// GET /api/microsoft/oauth/callback?code&state — the Microsoft identity platform sends the browser back here after consent
export const GET = gatedRoute(async (req: NextRequest) => {
  const back = (params: Record<string, string>) => NextResponse.redirect(new URL(`/microsoft?${new URLSearchParams(params)}`, req.nextUrl));
  const m = await currentMember();
  if (!m) return NextResponse.redirect(new URL("/sign-in", req.nextUrl));
  const q = req.nextUrl.searchParams;
  try {
    const error = q.get("error") ? `${q.get("error")}${q.get("error_description") ? `: ${q.get("error_description")!.split("\n")[0]}` : ""}` : null;
    const connection = await completeMicrosoftConnect(m.member, { cookie: await takeMicrosoftOAuthCookie(), state: q.get("state"), code: q.get("code"), error });
    return back({ connected: connection.googleEmail });
  } catch (err) {
    const state = actionError(err);
    return back({ error: state && !state.ok ? state.error : "Could not connect Microsoft." });
  }
});
