import type { AgentRow, AgentTaintRow, MemberRow } from "@/db/schema";
import { hasRole } from "@/lib/domains/members/roles";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, Table, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { clearTaintAction } from "./taint-actions";

/**
 * Agents (and workspace-wide keys) tainted by untrusted mail they read (SPEC §13): while tainted,
 * the actions the workspace's policies name need a person. Approvers can clear a taint.
 */
export function TaintCard({ member, agents, taints }: { member: MemberRow; agents: AgentRow[]; taints: AgentTaintRow[] }) {
  const readers = [...new Set(taints.map((t) => t.reader))];
  const nameOf = (reader: string) => agents.find((a) => a.id === reader)?.name ?? `workspace-wide key ${reader}`;
  return (
    <Card title="Tainted by untrusted mail" id="taint">
      {readers.length === 0 ? (
        <Empty>No agent has read untrusted mail within the taint window.</Empty>
      ) : (
        <Table caption="Tainted agents" head={["Agent", "Read", "From", "Why", "Until", ""]}>
          {readers.map((reader) => {
            const mine = taints.filter((t) => t.reader === reader);
            const last = mine[0]!;
            return (
              <tr key={reader} data-testid={`taint-${reader}`}>
                <td className="py-2 pr-4 font-medium text-slate-900">{nameOf(reader)}</td>
                <td className="py-2 pr-4">
                  <Time at={last.lastReadAt} /> <span className="text-xs text-slate-600">via {last.channel}</span>
                  {mine.length > 1 ? <span className="text-xs text-slate-600"> (+{mine.length - 1} more)</span> : null}
                </td>
                <td className="py-2 pr-4">{last.fromEmail}</td>
                <td className="py-2 pr-4">
                  {last.reasons.map((r) => (
                    <Badge key={r} tone="red">
                      {r.replaceAll("_", " ")}
                    </Badge>
                  ))}
                </td>
                <td className="py-2 pr-4">
                  <Time at={mine.reduce((a, t) => (t.expiresAt > a ? t.expiresAt : a), last.expiresAt)} />
                </td>
                <td className="py-2">
                  {hasRole(member.role, "approver") ? (
                    <ActionForm action={clearTaintAction} submit="Clear taint" submitClassName={secondaryButtonClass}>
                      <input type="hidden" name="reader" value={reader} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </Table>
      )}
    </Card>
  );
}
