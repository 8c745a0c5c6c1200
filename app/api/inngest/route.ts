import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { inngestFunctions } from "@/inngest/functions";
import { jobRunnerMode } from "@/lib/platform/jobs/job-runner-mode";
import { env } from "@/lib/platform/config/env";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// Inngest calls this to discover and run the background functions. With the embedded engine
// (no Inngest keys) there is nothing to serve: a clear 404 instead of the SDK's signing-key error.
// Built on first use, so the list reflects this deployment's configuration (Google or not).
let handlers: ReturnType<typeof serve> | undefined;
type Args = Parameters<ReturnType<typeof serve>["GET"]>;
const served = () => jobRunnerMode() === "inngest" || Boolean(env().INNGEST_DEV);
const notServed = () =>
  Response.json(
    { message: "Background work runs in the embedded engine. Set INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY (or JOB_RUNNER=inngest) to run it on Inngest." },
    { status: 404 },
  );
const serveInngest = () => (handlers ??= serve({ client: inngest, functions: inngestFunctions() }));

export const maxDuration = 300;
export const GET = gatedRoute((...args: Args) => (served() ? serveInngest().GET(...args) : notServed()));
export const POST = gatedRoute((...args: Args) => (served() ? serveInngest().POST(...args) : notServed()));
export const PUT = gatedRoute((...args: Args) => (served() ? serveInngest().PUT(...args) : notServed()));
