import Link from "next/link";
import type { Actor } from "@/lib/actor";
import { listMessages } from "@/lib/mail/read-mail";
import { listMessagesQuery } from "@/lib/mail/schemas";
import { claimsForMessages } from "@/lib/claims/list-claims";
import { Badge, Card, Empty, Table, Time, linkClass } from "../../_components/ui";

/** Who handles what (SPEC §12): each recent received message and the worker claiming it, if any. */
export async function ClaimsCard({ actor, inboxId }: { actor: Actor; inboxId: string }) {
  const received = await listMessages(actor, inboxId, listMessagesQuery.parse({ direction: "inbound", limit: "20" }));
  const claims = await claimsForMessages(actor.workspaceId, received.items.map((m) => m.id));
  return (
    <Card title="Who handles what" id="claims">
      {received.items.length === 0 ? (
        <Empty>No received mail yet.</Empty>
      ) : (
        <Table caption="Received messages and their claims, newest first" head={["Message", "Handling", "Until / since"]}>
          {received.items.map((m) => {
            const c = claims.get(m.id);
            const live = c?.status === "claimed";
            return (
              <tr key={m.id} data-testid={`claim-${m.id}`}>
                <td className="py-2 pr-4">
                  <Link href={`/inboxes/${inboxId}/threads/${m.thread_id}#${m.id}`} className={linkClass}>
                    {m.subject || "(no subject)"}
                  </Link>{" "}
                  <span className="text-slate-600">from {m.from.email}</span>
                </td>
                <td className="py-2 pr-4">
                  {!c || c.status === "released" || c.status === "expired" ? (
                    <Badge tone="slate">free</Badge>
                  ) : (
                    <span className="flex flex-wrap items-center gap-1">
                      <Badge tone={live ? "amber" : "green"}>{live ? "claimed" : "handled"}</Badge>
                      <span>{c.agentName ?? "a workspace-wide key"}</span>
                    </span>
                  )}
                </td>
                <td className="py-2 pr-4 text-slate-700">
                  {live ? <Time at={c.expiresAt} /> : c?.status === "completed" && c.endedAt ? <Time at={c.endedAt} /> : "—"}
                </td>
              </tr>
            );
          })}
        </Table>
      )}
    </Card>
  );
}
