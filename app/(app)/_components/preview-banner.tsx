import Link from "next/link";
import { capturedKinds, isPreviewDeployment, type OutboundKind } from "@/lib/platform/config/preview";
import { focusRing } from "./ui";

const LABELS: Record<OutboundKind, string> = { webhooks: "webhooks", mail: "mail", notifications: "channel notices", calendar: "calendar writes" };

/** On a preview deployment: what it captures instead of sending (its data may be a copy of production's). */
export function PreviewBanner() {
  if (!isPreviewDeployment()) return null;
  const kinds = capturedKinds();
  const list = kinds.map((k) => LABELS[k]);
  const sentence = list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list.at(-1)}` : (list[0] ?? "");
  return (
    <div role="status" data-testid="preview-banner" className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-center text-sm text-amber-950">
      <strong>Preview deployment.</strong>{" "}
      {kinds.length
        ? `Its ${sentence} are captured here, not sent${kinds.length < 4 ? " (the rest are sent: AGENTDRAFT_PREVIEW_SEND)" : ""}. `
        : "It sends everything, as production does (AGENTDRAFT_PREVIEW_SEND). "}
      <Link href="/captured" className={`underline ${focusRing}`}>
        See what was captured
      </Link>
    </div>
  );
}
