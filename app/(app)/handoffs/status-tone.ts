import type { HandoffStatus } from "@/db/schema";

/** One colour per handoff status, on every page that shows one. */
export const STATUS_TONE: Record<HandoffStatus, "green" | "red" | "amber" | "slate" | "indigo"> = {
  pending: "amber",
  claimed: "indigo",
  completed: "green",
  dead: "red",
  expired: "slate",
};
