import Link from "next/link";
import type { Actor } from "@/lib/platform/actor";
import { listMessages } from "@/lib/domains/mail/read-mail";
import { listMessagesQuery } from "@/lib/domains/mail/schemas";
import { claimsForMessages } from "@/lib/domains/claims/list-claims";
import { Badge, Card, Empty, linkClass } from "../../_components/ui";
import { Time } from "../../_components/time";

/** Who handles what (SPEC §12): each recent received message and the worker claiming it, if any. */
export async function ClaimsCard({ actor, inboxId }: { actor: Actor; inboxId: string }) {
  const received = await listMessages(actor, inboxId, listMessagesQuery.parse({ direction: "inbound", limit: "20" }));
  const claims = await claimsForMessages(actor.workspaceId, received.items.map((m) => m.id));
  return (
    <Card title="Who handles what" id="claims">
      {received.items.length === 0 ? (
        <Empty>No received mail yet.</Empty>
      ) : (
        <ul className="divide-y divide-slate-100" aria-label="Received messages and their claims, newest first">
          {received.items.map((m) => {
            const c = claims.get(m.id);
            const live = c?.status === "claimed";
            const free = !c || c.status === "released" || c.status === "expired";
            return (
              <li key={m.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm" data-testid={`claim-${m.id}`}>
                <span className="min-w-0">
                  <Link href={`/inboxes/${inboxId}/threads/${m.thread_id}#${m.id}`} className={linkClass}>
                    {m.subject || "(no subject)"}
                  </Link>{" "}
                  <span className="text-slate-600">from {m.from.email}</span>
                </span>
                <span className="flex flex-wrap items-center gap-2 text-slate-700">
                  {free ? (
                    <Badge tone="slate">free</Badge>
                  ) : (
                    <>
                      <Badge tone={live ? "amber" : "green"}>{live ? "claimed" : "handled"}</Badge>
                      <span>{c.agentName ?? "a workspace-wide key"}</span>
                      <span className="text-xs text-slate-600">
                        {live ? "until " : "at "}
                        <Time at={live ? c.expiresAt : (c.endedAt ?? c.expiresAt)} />
                      </span>
                    </>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
