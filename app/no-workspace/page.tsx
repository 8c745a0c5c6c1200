import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentMember, currentUser } from "@/lib/domains/auth/current-member";
import { signOut } from "@/lib/domains/auth/auth";
import { AuthShell } from "../_passkeys/auth-shell";
import { passkeyButtonClass } from "../_passkeys/styles";

export const metadata: Metadata = { title: "No workspace" };
export const dynamic = "force-dynamic";

export default async function NoWorkspacePage() {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  if (await currentMember()) redirect("/overview");
  return (
    <AuthShell title="No workspace">
      <p className="text-sm text-slate-700">
        You are signed in as {user.email}, but you are not a member of any workspace (any more). Ask a workspace admin for an invitation.
      </p>
      <form
        className="mt-6"
        action={async () => {
          "use server";
          await signOut({ redirectTo: "/sign-in" });
        }}
      >
        <button type="submit" className={passkeyButtonClass}>
          Sign out
        </button>
      </form>
    </AuthShell>
  );
}
