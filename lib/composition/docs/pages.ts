/**
 * Every page of the developer docs the app serves under /docs, in the order the docs' menu and
 * the README's index list them. A page with a `file` renders docs/<file> (the same markdown the
 * repository shows); the others are built from code (the OpenAPI document, the error codes).
 * lib/composition/docs/pages.test.ts checks that each has its app/docs/<route>/page.tsx and that every
 * docs/*.md is listed here; links between docs files (`handoffs.md#claim`) are served as links
 * to these routes (lib/composition/docs/render-guide.ts).
 */
export type DocsPage = {
  /** The path the app serves it at. */
  route: string;
  title: string;
  /** One line for the menu's index and the README. */
  about: string;
  /** Its markdown under docs/, when it has one. */
  file?: string;
};

export const DOCS_PAGES: DocsPage[] = [
  { route: "/docs", title: "Getting started", file: "getting-started.md", about: "an agent's first hold, approval, webhook and MCP connection" },
  { route: "/docs/api", title: "API reference", about: "every operation of `/api/v1`, built from the OpenAPI document" },
  { route: "/docs/errors", title: "Error codes", about: "every problem `code`, what it means and what to do" },
  { route: "/docs/api-guide", title: "API guide", file: "api-guide.md", about: "keys, errors, idempotency, pagination, rate limits; the TypeScript client and MCP" },
  { route: "/docs/python", title: "Python SDK", file: "python-sdk.md", about: "the generated Python client (standard library only): calls, approvals, handoffs, events, webhook and receipt verification" },
  { route: "/docs/holds", title: "Calendars and holds", file: "holds.md", about: "the conflict engine: holds, preemption, one round trip per operation" },
  { route: "/docs/coordination", title: "Coordination", file: "coordination.md", about: "holds that wait for an approval, priority ceilings, leases, message claims" },
  { route: "/docs/approvals", title: "Approvals", file: "approvals.md", about: "human in the loop: quorum, policies, receipts, taint, spending an approval once" },
  { route: "/docs/mail", title: "Inboxes and email", file: "mail.md", about: "agents' inboxes, mail in and out, sanitising, hostile mail" },
  { route: "/docs/handoffs", title: "Handoffs", file: "handoffs.md", about: "typed work between agents, traces, agent notes" },
  { route: "/docs/webhooks", title: "Webhooks", file: "webhooks.md", about: "endpoints, events, signatures, delivery and retries, the SSRF guard" },
  { route: "/docs/mcp", title: "Connect an MCP client", file: "connect-mcp.md", about: "Claude, ChatGPT, Cursor and VS Code by URL: OAuth 2.1 with a passkey-confirmed consent" },
  { route: "/docs/events", title: "Live events", file: "live-events.md", about: "the event stream for agents without a public URL" },
  { route: "/docs/calendar-sync", title: "Calendar sync", file: "calendar-sync.md", about: "Google Calendar and Microsoft 365 / Outlook" },
  { route: "/docs/notification-channels", title: "Notification channels", file: "notification-channels.md", about: "Slack, Microsoft Teams and Discord" },
  { route: "/docs/audit", title: "Audit trail", file: "audit-trail.md", about: "the hash chain, sealing, signed checkpoints" },
  { route: "/docs/web-app", title: "Web app", file: "web-app.md", about: "passkeys, first run, members and roles, captured mail, pages" },
  { route: "/docs/sso", title: "Single sign-on (OIDC)", file: "sso.md", about: "Okta, Microsoft Entra ID and Google Workspace sign people in; verified domains can require it" },
  { route: "/docs/scim", title: "SCIM provisioning", file: "scim.md", about: "Okta and Microsoft Entra ID add, update and remove people; groups set roles" },
  { route: "/docs/cli", title: "Operator CLI", file: "cli.md", about: "`npx agentdraft`: migrations, workspaces, agents, keys, audit, SMTP" },
  { route: "/docs/security", title: "Security", file: "security.md", about: "what is promised, the test that keeps each promise, known limits" },
  { route: "/docs/configuration", title: "Configuration", file: "configuration.md", about: "every environment variable (generated from `lib/platform/config/env.ts`), fixed limits" },
  { route: "/docs/background-work", title: "Background work", file: "background-work.md", about: "every job kind (generated from the registry), the embedded engine, Inngest" },
  { route: "/docs/production", title: "Production", file: "production.md", about: "start-up checks, health, deploying on Vercel + Neon + Inngest + Resend" },
  { route: "/docs/deploy", title: "Deploy checklist", file: "deploy-checklist.md", about: "what to set and check, in order, previews included" },
];

export function docsPage(route: string): DocsPage {
  const page = DOCS_PAGES.find((p) => p.route === route);
  if (!page) throw new Error(`no docs page at ${route} (lib/composition/docs/pages.ts)`);
  return page;
}

/** The route a docs file is served at (`handoffs.md` → `/docs/handoffs`), if it is served. */
export const routeOfFile = (file: string) => DOCS_PAGES.find((p) => p.file === file)?.route;
