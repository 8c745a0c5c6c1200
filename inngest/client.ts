// The client lives in lib/jobs (the request path sends events after commit); served from here.
export { inngest } from "../lib/jobs/inngest-client";
