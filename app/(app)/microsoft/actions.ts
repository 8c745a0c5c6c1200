"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { appUrl } from "@/lib/domains/auth/app-url";
import { microsoftCallbackUrl } from "@/lib/domains/calendar-sync/microsoft/config";
import {
  disconnectMicrosoft,
  linkMicrosoftCalendar,
  linkMicrosoftCalendarInput,
  requestMicrosoftSync,
  startMicrosoftConnect,
  unlinkMicrosoftCalendar,
} from "@/lib/domains/calendar-sync/microsoft/calendar-sync";
import { saveMicrosoftOAuthCookie } from "@/lib/domains/calendar-sync/microsoft/oauth-cookie";
import { syncLink } from "@/lib/domains/calendar-sync/sync-link";
import { retryExport } from "@/lib/domains/calendar-sync/exports";

const noFields = z.object({});
const connectionId = z.object({ connection_id: z.string().min(1) });
const linkId = z.object({ link_id: z.string().min(1) });
const exportId = z.object({ export_id: z.string().min(1) });

/** Sends the browser to Microsoft's sign-in and consent, bound to this member by a short-lived cookie. */
export async function connectMicrosoftAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "connect Microsoft 365", noFields, form, async ({ member }) => {
    const { url, cookie } = startMicrosoftConnect(member, microsoftCallbackUrl(await appUrl()));
    await saveMicrosoftOAuthCookie(cookie);
    redirect(url);
  });
}

export async function disconnectMicrosoftAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "disconnect Microsoft 365", connectionId, form, async ({ member }, input) => {
    const result = await disconnectMicrosoft(memberActor(member), input.connection_id);
    revalidatePath("/microsoft");
    return { ok: true, message: `Disconnected ${result.connection.googleEmail}; AgentDraft forgot its token. ${result.revokeError ?? ""}`.trim() };
  });
}

export async function linkMicrosoftCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "link calendars to Outlook", linkMicrosoftCalendarInput, form, async ({ member }, input) => {
    const link = await linkMicrosoftCalendar(memberActor(member), input);
    const first = await syncLink(link.id);
    revalidatePath("/microsoft");
    return first?.status === "failed"
      ? { ok: false, error: `Linked, but the first sync failed: ${first.error}. It will be retried.` }
      : { ok: true, message: `Linked to ${link.googleCalendarName ?? link.googleCalendarId}; ${intervals(first?.upserted ?? 0)} imported.` };
  });
}

export async function unlinkMicrosoftCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "unlink calendars from Outlook", linkId, form, async ({ member }, input) => {
    await unlinkMicrosoftCalendar(memberActor(member), input.link_id);
    revalidatePath("/microsoft");
    return { ok: true, message: "Unlinked; its imported busy time is gone." };
  });
}

export async function syncMicrosoftNowAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "sync calendars", linkId, form, async ({ workspace }, input) => {
    await requestMicrosoftSync(workspace.id, input.link_id);
    const result = await syncLink(input.link_id);
    revalidatePath("/microsoft");
    if (!result) return { ok: true, message: "A sync is already running for this calendar." };
    return result.status === "ok" ? { ok: true, message: `Synced (${result.full ? "full" : "incremental"}): ${intervals(result.upserted)} added or moved, ${result.removed} removed.` } : { ok: false, error: `Sync failed: ${result.error}` };
  });
}

export async function retryMicrosoftExportAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "retry Outlook exports", exportId, form, async ({ member }, input) => {
    await retryExport(memberActor(member), input.export_id);
    revalidatePath("/microsoft");
    return { ok: true, message: "Queued: the export runs again within a few seconds." };
  });
}

const intervals = (n: number) => `${n} busy interval${n === 1 ? "" : "s"}`;
