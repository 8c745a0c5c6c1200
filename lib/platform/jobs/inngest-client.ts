import { Inngest } from "inngest";

/**
 * The Inngest client. In production it reads INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY from the
 * environment; without them the embedded engine (lib/platform/jobs/engine.ts) runs the same work instead.
 */
export const inngest = new Inngest({ id: "agentdraft" });
