import type { Metadata } from "next";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole, MEMBER_ROLES, ROLE_DESCRIPTIONS } from "@/lib/domains/members/roles";
import { listMembers } from "@/lib/domains/members/memberships";
import { listPendingInvitations } from "@/lib/domains/invitations/find-invitation";
import { provenMemberIds } from "@/lib/domains/members/email-proof";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { changeRoleAction, inviteAction, removeMemberAction, revokeInvitationAction } from "./actions";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  const { member: me, workspace } = await requireMember();
  const [members, invitations, proven] = await Promise.all([listMembers(workspace.id), listPendingInvitations(workspace.id), provenMemberIds(workspace.id)]);
  const canManage = hasRole(me.role, "admin");
  const assignable = MEMBER_ROLES.filter((r) => r !== "owner" || me.role === "owner");
  return (
    <>
      <PageHeader title="Members" description="People who use this workspace, signing in with passkeys." />
      {canManage ? (
        <Card title="Invite a member" id="invite">
          <ActionForm action={inviteAction} submit="Send invitation" className="grid gap-4 sm:grid-cols-[2fr_1fr_auto] sm:items-end">
            <Field label="Email" name="email">
              <input id="email" name="email" type="email" required autoComplete="off" className={inputClass} placeholder="grace@example.com" />
            </Field>
            <Field label="Role" name="role">
              <select id="role" name="role" defaultValue="viewer" className={inputClass}>
                {(["admin", "approver", "viewer"] as const).map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </Field>
          </ActionForm>
        </Card>
      ) : null}
      <Card title="Members" id="members">
        <Table caption="Members of this workspace" head={["Name", "Email", "Role", "Joined", ...(canManage ? ["Change role", ""] : [])]}>
          {members.map((m) => (
            <tr key={m.id} data-testid={`member-${m.email}`}>
              <td className="py-2 pr-4 font-medium text-slate-900">
                {m.name ?? "—"} {m.id === me.id ? <Badge tone="indigo">you</Badge> : null}
              </td>
              <td className="py-2 pr-4">
                {m.email}{" "}
                {proven.has(m.id) ? null : (
                  <span title="Nobody has shown this address belongs to this member: the invitation was captured (readable by admins) or handed over, not sent through a mail provider.">
                    <Badge tone="amber">unproven</Badge>
                  </span>
                )}
              </td>
              <td className="py-2 pr-4">
                <Badge>{m.role}</Badge>
              </td>
              <td className="py-2 pr-4 text-xs">
                <Time at={m.createdAt} />
              </td>
              {canManage ? (
                <>
                  <td className="py-2 pr-4">
                    {m.role !== "owner" || me.role === "owner" ? (
                      <ActionForm action={changeRoleAction} submit="Save" submitClassName={secondaryButtonClass} className="flex items-center gap-2">
                        <input type="hidden" name="member_id" value={m.id} />
                        <label htmlFor={`role-${m.id}`} className="sr-only">
                          Role of {m.email}
                        </label>
                        <select id={`role-${m.id}`} name="role" defaultValue={m.role} className={`${inputClass} w-auto py-1`}>
                          {assignable.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      </ActionForm>
                    ) : null}
                  </td>
                  <td className="py-2">
                    {m.id !== me.id && (m.role !== "owner" || me.role === "owner") ? (
                      <ActionForm action={removeMemberAction} submit={<>Remove<span className="sr-only"> {m.email}</span></>} submitClassName={dangerButtonClass}>
                        <input type="hidden" name="member_id" value={m.id} />
                      </ActionForm>
                    ) : null}
                  </td>
                </>
              ) : null}
            </tr>
          ))}
        </Table>
      </Card>
      <Card title="Pending invitations" id="invitations">
        {invitations.length === 0 ? (
          <Empty>No pending invitations.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {invitations.map((i) => (
              <li key={i.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span>
                  {i.email} <Badge>{i.role}</Badge> <span className="text-xs text-slate-600">expires <Time at={i.expiresAt} /></span>
                </span>
                {canManage ? (
                  <ActionForm action={revokeInvitationAction} submit={<>Revoke<span className="sr-only"> invitation for {i.email}</span></>} submitClassName={dangerButtonClass}>
                    <input type="hidden" name="invitation_id" value={i.id} />
                  </ActionForm>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Roles" id="roles">
        <dl className="grid gap-2 text-sm sm:grid-cols-2">
          {MEMBER_ROLES.map((r) => (
            <div key={r}>
              <dt className="font-medium text-slate-900">{r}</dt>
              <dd className="text-slate-700">{ROLE_DESCRIPTIONS[r]}</dd>
            </div>
          ))}
        </dl>
      </Card>
    </>
  );
}
