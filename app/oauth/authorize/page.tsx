import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentMember } from "@/lib/domains/auth/current-member";
import { checkAuthorizeRequest } from "@/lib/domains/oauth/authorize-request";
import { consentView } from "@/lib/domains/oauth/consent-view";
import { CONSENT_ERRORS } from "@/lib/domains/oauth/consent-decision";
import { AuthShell } from "../../_passkeys/auth-shell";
import { ConfirmWithPasskey } from "../../_passkeys/passkey-button";

export const metadata: Metadata = { title: "Connect an application" };
export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** GET /oauth/authorize: an MCP client asks a person to let it act as one of their agents. */
export default async function AuthorizePage({ searchParams }: { searchParams: Search }) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) query.append(k, one);
  const consentError = query.get("consent_error");
  query.delete("consent_error");
  const here = `/oauth/authorize?${query.toString()}`;
  const checked = await checkAuthorizeRequest(query);
  if (!checked.ok && "redirect" in checked) redirect(checked.redirect);
  if (!checked.ok) {
    return (
      <AuthShell title="This request cannot be used">
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">{checked.problem}</p>
        <p className="mt-4 text-sm text-slate-700">Nothing was shared. Go back to the application and connect again.</p>
      </AuthShell>
    );
  }
  const m = await currentMember();
  if (!m) redirect(`/sign-in?next=${encodeURIComponent(here)}`);
  const view = await consentView(m, checked);
  return (
    <AuthShell title={`Connect ${view.clientName}`}>
      {consentError ? (
        <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">{CONSENT_ERRORS[consentError] ?? "That did not work. Try again."}</p>
      ) : null}
      <p className="text-sm text-slate-700">
        <strong className="font-semibold text-slate-900">{view.clientName}</strong> asks to act as an agent of <strong className="font-semibold text-slate-900">{m.workspace.name}</strong>.
      </p>
      <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600">Sends you back to</dt>
        <dd className="break-all font-mono text-slate-900">{view.redirectTarget}</dd>
        <dt className="text-slate-600">Registered</dt>
        <dd className="text-slate-900">
          {view.registration === "dynamic" ? "by itself" : "by its metadata document"}, {view.registeredAt.toISOString().slice(0, 16).replace("T", " ")} UTC
          {view.isNew ? <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900">New</span> : null}
        </dd>
      </dl>
      {view.isNew ? (
        <p className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          This application registered itself in the last day. Connect it only if you just started this from an application you trust.
        </p>
      ) : null}
      {!view.canConsent ? (
        <p role="alert" className="mt-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">Only admins and owners can connect applications. Ask one of them.</p>
      ) : view.agents.length === 0 ? (
        <p role="alert" className="mt-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">This workspace has no agents yet. Create one first, then connect again.</p>
      ) : (
        <>
          {!view.confirmed ? (
            <div className="mt-4 rounded-md border border-slate-200 p-3">
              <p className="mb-2 text-sm text-slate-700">Connecting an application needs a passkey confirmation from the last 5 minutes.</p>
              <ConfirmWithPasskey returnTo={here} />
            </div>
          ) : (
            <p className="mt-4 text-sm text-emerald-800">Passkey confirmed.</p>
          )}
          <form method="post" action="/oauth/authorize/decision" className="mt-4 space-y-4">
            <input type="hidden" name="request" value={query.toString()} />
            <input type="hidden" name="workspace_id" value={m.workspace.id} />
            <div>
              <label htmlFor="agent_id" className="mb-1 block text-sm font-medium text-slate-800">Act as the agent</label>
              <select id="agent_id" name="agent_id" required className="block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900">
                {view.agents.map((a) => (
                  <option key={a.id} value={a.id}>{a.name}</option>
                ))}
              </select>
            </div>
            <fieldset>
              <legend className="mb-1 text-sm font-medium text-slate-800">It may</legend>
              {view.scopes.map((s) => (
                <label key={s.name} className="flex items-center gap-2 py-0.5 text-sm text-slate-800">
                  <input type="checkbox" name="scope" value={s.name} defaultChecked className="h-4 w-4 rounded border-slate-400 accent-indigo-700" />
                  {s.description}
                </label>
              ))}
            </fieldset>
            <div className="flex gap-3">
              <button type="submit" name="decision" value="allow" disabled={!view.confirmed} className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-medium text-white disabled:opacity-50">Allow</button>
              <button type="submit" name="decision" value="deny" className="rounded-md border border-slate-300 px-4 py-2 text-sm font-medium text-slate-800">Deny</button>
            </div>
          </form>
        </>
      )}
    </AuthShell>
  );
}
