import type { DraftStatus } from "@/db/schema";
import { Badge } from "../_components/ui";

const TONE = { draft: "amber", returned: "red", sent: "green", discarded: "slate" } as const;
const HINT: Record<DraftStatus, string> = {
  draft: "waiting for review: edit, send or send back",
  returned: "sent back to the agent with a note",
  sent: "became a message (which may wait for approval)",
  discarded: "never sent",
};

export function DraftStatusBadge({ status }: { status: DraftStatus }) {
  return (
    <span title={HINT[status]}>
      <Badge tone={TONE[status]}>{status}</Badge>
    </span>
  );
}
