import type { Metadata } from "next";
import { requireMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { hasRole } from "@/lib/domains/members/roles";
import { inboxCounts, listDomains } from "@/lib/domains/mail/mail-domains";
import { serializeDomain } from "@/lib/domains/mail/domain-operations";
import { domainProvider } from "@/lib/domains/mail/resend-domains";
import { env } from "@/lib/platform/config/env";
import { ActionForm } from "../_components/action-form";
import { CopyButton } from "../_components/copy-button";
import { Time } from "../_components/time";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, secondaryButtonClass } from "../_components/ui";
import { addDomainAction, deleteDomainAction, verifyDomainAction } from "./domain-actions";

export const metadata: Metadata = { title: "Mail domains" };

const TONES = { verified: "green", pending: "amber", failed: "red", capture_only: "slate", not_started: "slate", temporary_failure: "amber" } as const;
const tone = (status: string) => TONES[status as keyof typeof TONES] ?? "slate";

export default async function DomainsPage() {
  const { member } = await requireMember();
  const actor = memberActor(member);
  const admin = hasRole(member.role, "admin");
  const { items } = await listDomains(actor, { limit: 100 });
  const counts = await inboxCounts(items.map((d) => d.id));
  const domains = items.map((d) => serializeDomain(d, counts.get(d.id) ?? 0));
  const resend = domainProvider() !== null;
  return (
    <>
      <PageHeader
        title="Mail domains"
        description={
          <>
            Your own domains for agents&apos; addresses (default: <code>@{env().AGENTDRAFT_MAIL_DOMAIN}</code>).{" "}
            {resend ? "Each is registered with Resend: create the DNS records it lists, and inboxes on it send once it is verified." : "No RESEND_API_KEY is set: domains are accepted in capture mode, nothing is verified, and their mail is captured here."}
          </>
        }
      />
      {admin ? (
        <Card title="Add a domain" id="add-domain">
          <ActionForm action={addDomainAction} submit="Add domain" className="flex flex-wrap items-end gap-3">
            <Field label="Domain" name="name" hint="A subdomain such as support.acme.com keeps your existing mail untouched.">
              <input id="name" name="name" required maxLength={253} className={inputClass} placeholder="support.acme.com" aria-describedby="name-hint" />
            </Field>
          </ActionForm>
        </Card>
      ) : null}
      {domains.length === 0 ? (
        <Card>
          <Empty>No domains yet. Add one here, with POST /api/v1/domains, or `agentdraft domains add`.</Empty>
        </Card>
      ) : (
        domains.map((d) => (
          <Card key={d.id} title={d.name} id={d.id}>
            <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
              <Badge tone={tone(d.status)}>{d.status.replace("_", " ")}</Badge>
              <span>
                {d.inboxes} inbox{d.inboxes === 1 ? "" : "es"}
              </span>
              {d.last_checked_at ? (
                <span>
                  checked <Time at={new Date(d.last_checked_at)} />
                </span>
              ) : null}
              {d.next_check_at ? (
                <span>
                  next check <Time at={new Date(d.next_check_at)} />
                </span>
              ) : null}
            </div>
            {d.note ? <p className="mt-2 text-sm text-slate-700">{d.note}</p> : null}
            {d.last_error ? <p className="mt-2 text-sm text-red-800">Last error: {d.last_error}</p> : null}
            {d.records.length ? (
              <div className="mt-4">
                <Table caption={`DNS records for ${d.name}`} head={["For", "Type", "Name", "Value", "Priority", "TTL", "State"]}>
                  {d.records.map((r, i) => (
                    <tr key={i}>
                      <td className="py-2 pr-4">{r.record === "Receiving" ? "Inbound (MX)" : r.record}</td>
                      <td className="py-2 pr-4 font-mono text-xs">{r.type}</td>
                      <td className="py-2 pr-4">
                        <div className="flex items-center gap-2">
                          <code className="break-all text-xs">{r.name}</code>
                          <CopyButton value={r.name} label="Copy name" />
                        </div>
                      </td>
                      <td className="py-2 pr-4">
                        <div className="flex items-center gap-2">
                          <code className="max-w-xs break-all text-xs">{r.value}</code>
                          <CopyButton value={r.value} label="Copy value" />
                        </div>
                      </td>
                      <td className="py-2 pr-4 tabular-nums">{r.priority ?? ""}</td>
                      <td className="py-2 pr-4">{r.ttl}</td>
                      <td className="py-2 pr-4">
                        <Badge tone={tone(r.status)}>{r.status.replace("_", " ")}</Badge>
                      </td>
                    </tr>
                  ))}
                </Table>
              </div>
            ) : null}
            {admin ? (
              <div className="mt-4 flex flex-wrap gap-3">
                {d.status !== "capture_only" || resend ? (
                  <ActionForm action={verifyDomainAction} submit="Verify now" submitClassName={secondaryButtonClass}>
                    <input type="hidden" name="domain_id" value={d.id} />
                  </ActionForm>
                ) : null}
                {d.inboxes === 0 ? (
                  <ActionForm action={deleteDomainAction} submit="Remove domain" submitClassName={dangerButtonClass}>
                    <input type="hidden" name="domain_id" value={d.id} />
                  </ActionForm>
                ) : null}
              </div>
            ) : null}
          </Card>
        ))
      )}
    </>
  );
}
