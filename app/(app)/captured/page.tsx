import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listCaptures } from "@/lib/platform/outbound/captures";
import { isPreviewDeployment } from "@/lib/platform/config/preview";
import { Badge, Card, Empty, PageHeader, linkClass } from "../_components/ui";
import { Time } from "../_components/time";

export const metadata: Metadata = { title: "Captured effects" };

// What a preview deployment did not send: webhooks, channel notices, calendar writes (mail is on Captured mail).
export default async function CapturedPage() {
  const { workspace } = await requireMember();
  const items = await listCaptures(workspace.id);
  return (
    <>
      <PageHeader
        title="Captured effects"
        description={
          isPreviewDeployment()
            ? "This is a preview deployment: these webhooks, channel notices and calendar writes were recorded here instead of being sent. Mail is kept on Captured mail."
            : "Effects a preview deployment of this database recorded instead of sending. This deployment sends them."
        }
      />
      <Card>
        {items.length === 0 ? (
          <Empty>Nothing captured.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="captured-effects">
            {items.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center justify-between gap-2 py-3 text-sm">
                <span className="flex items-center gap-2">
                  <Badge tone="indigo">{c.kind}</Badge>
                  <span className="text-slate-900">{String(c.summary.type ?? c.summary.write ?? "")}</span>
                  <span className="break-all text-slate-600">→ {c.target}</span>
                </span>
                <Time at={c.createdAt} />
              </li>
            ))}
          </ul>
        )}
      </Card>
      <p className="mt-3 text-sm text-slate-600">
        <Link href="/mail" className={linkClass}>
          Captured mail
        </Link>
      </p>
    </>
  );
}
