import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";

// Inngest calls this to discover and run the background functions (JOB_RUNNER=inngest).
export const { GET, POST, PUT } = serve({ client: inngest, functions });
