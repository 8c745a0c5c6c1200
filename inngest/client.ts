// The client lives in lib/platform/jobs (the request path sends events after commit); served from here.
export { inngest } from "../lib/platform/jobs/inngest-client";
