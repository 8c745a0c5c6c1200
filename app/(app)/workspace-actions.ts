"use server";

import { z } from "zod";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { currentMemberships, WORKSPACE_COOKIE } from "@/lib/domains/auth/current-member";
import { formFields } from "@/lib/domains/auth/member-action";
import { appCookieOptions, YEAR_SECONDS } from "@/lib/domains/auth/cookie-options";

/** Switches the workspace shown, among the signed-in person's own memberships. */
export async function switchWorkspaceAction(form: FormData): Promise<void> {
  const { workspace_id } = z.object({ workspace_id: z.string().min(1).max(100) }).parse(formFields(form));
  const memberships = await currentMemberships();
  if (!memberships.some((m) => m.workspace.id === workspace_id)) redirect("/overview");
  (await cookies()).set(WORKSPACE_COOKIE, workspace_id, appCookieOptions(YEAR_SECONDS));
  redirect("/overview");
}
