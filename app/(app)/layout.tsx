import type { ReactNode } from "react";
import Link from "next/link";
import { currentMemberships, requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { NAV } from "./nav";
import { NavLinks } from "./_components/nav-links";
import { PreviewBanner } from "./_components/preview-banner";
import { focusRing, secondaryButtonClass } from "./_components/ui";
import { signOutAction } from "./settings/actions";
import { switchWorkspaceAction } from "./workspace-actions";

// Every page under (app) also checks the member itself: a layout is not re-run on every navigation.
export default async function AppLayout({ children }: { children: ReactNode }) {
  const { user, member, workspace } = await requireMember();
  const items = NAV.filter((i) => !i.minRole || hasRole(member.role, i.minRole));
  const memberships = await currentMemberships();
  return (
    <div className="min-h-screen">
      <a href="#main" className={`sr-only rounded bg-white px-3 py-2 focus:not-sr-only focus:absolute focus:left-2 focus:top-2 ${focusRing}`}>
        Skip to content
      </a>
      <PreviewBanner />
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div className="flex items-center gap-3">
            <Link href="/overview" className={`text-lg font-semibold tracking-tight text-slate-900 ${focusRing}`}>
              AgentDraft
            </Link>
            <span className="text-slate-400" aria-hidden>
              /
            </span>
            <span className="text-sm font-medium text-slate-800" data-testid="workspace-name">
              {workspace.name}
            </span>
            {memberships.length > 1 ? (
              <form action={switchWorkspaceAction} className="flex items-center gap-2">
                <label htmlFor="workspace-switch" className="sr-only">
                  Switch workspace
                </label>
                <select id="workspace-switch" name="workspace_id" defaultValue={workspace.id} className={`rounded-md border border-slate-300 bg-white px-2 py-1 text-sm ${focusRing}`}>
                  {memberships.map((m) => (
                    <option key={m.workspace.id} value={m.workspace.id}>
                      {m.workspace.name} ({m.member.role})
                    </option>
                  ))}
                </select>
                <button type="submit" className={secondaryButtonClass}>
                  Switch
                </button>
              </form>
            ) : null}
          </div>
          <div className="flex items-center gap-3 text-sm">
            <span className="text-slate-700">
              <span className="sr-only">Signed in as </span>
              {user.name ?? user.email} <span className="text-slate-500">· {member.role}</span>
            </span>
            <form action={signOutAction}>
              <button type="submit" className={secondaryButtonClass}>
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 md:flex-row">
        <nav aria-label="Sections" className="md:w-48 md:shrink-0">
          <NavLinks items={items} />
        </nav>
        <main id="main" className="min-w-0 flex-1">
          {children}
        </main>
      </div>
    </div>
  );
}
