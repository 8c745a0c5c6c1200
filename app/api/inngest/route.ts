import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { jobRunnerMode } from "@/lib/jobs/job-runner-mode";
import { env } from "@/lib/config/env";

// Inngest calls this to discover and run the background functions. With the embedded runner
// (no Inngest keys) there is nothing to serve: a clear 404 instead of the SDK's signing-key error.
const handlers = serve({ client: inngest, functions });
type Args = Parameters<typeof handlers.GET>;

const served = () => jobRunnerMode() === "inngest" || Boolean(env().INNGEST_DEV);
const notServed = () =>
  Response.json(
    { message: "Background jobs run in the embedded runner. Set INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY (or JOB_RUNNER=inngest) to run them on Inngest." },
    { status: 404 },
  );

export const GET = (...args: Args) => (served() ? handlers.GET(...args) : notServed());
export const POST = (...args: Args) => (served() ? handlers.POST(...args) : notServed());
export const PUT = (...args: Args) => (served() ? handlers.PUT(...args) : notServed());
