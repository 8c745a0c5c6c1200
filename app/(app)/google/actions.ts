"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { appUrl } from "@/lib/domains/auth/app-url";
import { oauthCallbackUrl } from "@/lib/domains/calendar-sync/google/config";
import { disconnectGoogle, startGoogleConnect } from "@/lib/domains/calendar-sync/google/connections";
import { saveGoogleOAuthCookie } from "@/lib/domains/calendar-sync/google/oauth-cookie";
import { linkCalendar, linkCalendarInput, requestSync, unlinkCalendar } from "@/lib/domains/calendar-sync/google/links";
import { syncLink } from "@/lib/domains/calendar-sync/google/sync-calendar";
import { retryExport } from "@/lib/domains/calendar-sync/google/export-event";

const noFields = z.object({});
const connectionId = z.object({ connection_id: z.string().min(1) });
const linkId = z.object({ link_id: z.string().min(1) });
const exportId = z.object({ export_id: z.string().min(1) });

/** Sends the browser to Google's consent screen, bound to this member by a short-lived cookie. */
export async function connectGoogleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "connect Google Calendar", noFields, form, async ({ member }) => {
    const { url, cookie } = startGoogleConnect(member, oauthCallbackUrl(await appUrl()));
    await saveGoogleOAuthCookie(cookie);
    redirect(url);
  });
}

export async function disconnectGoogleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "disconnect Google Calendar", connectionId, form, async ({ member }, input) => {
    const result = await disconnectGoogle(memberActor(member), input.connection_id);
    revalidatePath("/google");
    return result.revokedAtGoogle
      ? { ok: true, message: `Disconnected ${result.connection.googleEmail}; Google revoked its access.` }
      : { ok: true, message: `Disconnected ${result.connection.googleEmail}, but Google did not confirm the revocation (${result.revokeError}). Remove AgentDraft's access in that Google account's security settings.` };
  });
}

export async function linkCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "link calendars to Google", linkCalendarInput, form, async ({ member }, input) => {
    const link = await linkCalendar(memberActor(member), input);
    const first = await syncLink(link.id);
    revalidatePath("/google");
    return first?.status === "failed"
      ? { ok: false, error: `Linked, but the first sync failed: ${first.error}. It will be retried.` }
      : { ok: true, message: `Linked to ${link.googleCalendarName ?? link.googleCalendarId}; ${intervals(first?.upserted ?? 0)} imported.` };
  });
}

export async function unlinkCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "unlink calendars from Google", linkId, form, async ({ member }, input) => {
    await unlinkCalendar(memberActor(member), input.link_id);
    revalidatePath("/google");
    return { ok: true, message: "Unlinked; its imported busy time is gone." };
  });
}

export async function syncNowAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "sync calendars", linkId, form, async ({ workspace }, input) => {
    await requestSync(workspace.id, input.link_id);
    const result = await syncLink(input.link_id);
    revalidatePath("/google");
    if (!result) return { ok: true, message: "A sync is already running for this calendar." };
    return result.status === "ok" ? { ok: true, message: `Synced (${result.full ? "full" : "incremental"}): ${intervals(result.upserted)} added or moved, ${result.removed} removed.` } : { ok: false, error: `Sync failed: ${result.error}` };
  });
}

export async function retryExportAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "retry Google exports", exportId, form, async ({ member }, input) => {
    await retryExport(memberActor(member), input.export_id);
    revalidatePath("/google");
    return { ok: true, message: "Queued: the export runs again within a few seconds." };
  });
}

const intervals = (n: number) => `${n} busy interval${n === 1 ? "" : "s"}`;
