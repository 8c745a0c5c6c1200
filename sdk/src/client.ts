import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./schema.js";
import { unwrap } from "./errors.js";
import { auditApi, handoffsApi } from "./handoffs.js";
import { streamEvents, type AgentDraftEvent, type EventsOptions } from "./events.js";

export type ClientOptions = {
  /** An AgentDraft API key: `ad_live_...` or `ad_test_...`. */
  apiKey: string;
  /** Where AgentDraft runs, e.g. `https://agentdraft.example.com` (default `http://localhost:3000`). */
  baseUrl?: string;
  /** Sent as `x-trace-id`: kept on the audit entries and webhooks your calls cause. */
  traceId?: string;
  /**
   * Retries after a network error, 429, 5xx or 409 idempotency_in_progress (default 2). POSTs
   * get an Idempotency-Key of their own when you give none, so a retry never acts twice.
   */
  maxRetries?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
};

export interface AgentDraftClient extends Client<paths> {
  /** Handoffs between agents: send, work (claim, run, complete or fail, heartbeat). */
  handoffs: ReturnType<typeof handoffsApi<Client<paths>, AgentDraftClient>>;
  /** Agent notes in the audit trail. */
  audit: ReturnType<typeof auditApi<Client<paths>>>;
  /**
   * The workspace's events live (GET /v1/events, Server-Sent Events), as an async iterator that
   * reconnects with Last-Event-ID: `for await (const event of client.events()) ...`.
   */
  events(options?: EventsOptions): AsyncGenerator<AgentDraftEvent, void, undefined>;
}

/** The API root for an app origin: `http://localhost:3000` → `http://localhost:3000/api`. */
export function apiBaseUrl(baseUrl = "http://localhost:3000"): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/api") ? trimmed : `${trimmed}/api`;
}

/**
 * A typed client for every /api/v1 operation (paths, parameters, bodies and responses come
 * from the OpenAPI document). Calls return `{ data, error, response }`; `unwrap()` turns them
 * into the data or a thrown AgentDraftError.
 */
export function createAgentDraftClient(options: ClientOptions): AgentDraftClient {
  if (!options.apiKey) throw new Error("createAgentDraftClient: apiKey is required (ad_live_... or ad_test_...)");
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` };
  if (options.traceId) headers["x-trace-id"] = options.traceId;
  const fetchImpl = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const base = createClient<paths>({
    baseUrl: apiBaseUrl(options.baseUrl),
    headers,
    fetch: retrying(fetchImpl, options.maxRetries ?? 2),
  });
  const onTrace = (traceId: string): AgentDraftClient => createAgentDraftClient({ ...options, traceId });
  const events = (o?: EventsOptions) => streamEvents({ url: `${apiBaseUrl(options.baseUrl)}/v1/events`, headers, fetch: fetchImpl }, o);
  return Object.assign(base, { handoffs: handoffsApi(base, onTrace), audit: auditApi(base), events });
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

async function shouldRetry(res: Response): Promise<boolean> {
  if (RETRY_STATUSES.has(res.status)) return true;
  if (res.status !== 409) return false;
  const body = (await res.clone().json().catch(() => null)) as { code?: string } | null;
  return body?.code === "idempotency_in_progress";
}

function delayMs(attempt: number, res?: Response): number {
  const retryAfter = Number(res?.headers.get("retry-after"));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(retryAfter, 30) * 1000;
  return Math.min(8000, 250 * 2 ** attempt) * (0.75 + Math.random() / 2);
}

/** fetch with bounded retries; POSTs carry an Idempotency-Key so the server runs them at most once. */
function retrying(fetchImpl: (request: Request) => Promise<Response>, maxRetries: number) {
  return async (request: Request): Promise<Response> => {
    if (request.method === "POST" && !request.headers.has("idempotency-key")) {
      request.headers.set("idempotency-key", `sdk_${crypto.randomUUID()}`);
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      let res: Response;
      try {
        res = await fetchImpl(last ? request : request.clone());
      } catch (err) {
        if (last) throw err;
        await sleep(delayMs(attempt));
        continue;
      }
      if (last || !(await shouldRetry(res))) return res;
      await sleep(delayMs(attempt, res));
    }
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Approval = paths["/v1/approvals/{id}"]["get"]["responses"][200]["content"]["application/json"];

/**
 * Waits for humans to decide an approval, long-polling GET /v1/approvals/{id}?wait=30, and
 * returns it once it is no longer pending (or, after `timeoutMs`, still pending).
 */
export async function waitForApproval(client: AgentDraftClient, id: string, { timeoutMs = 10 * 60_000 } = {}): Promise<Approval> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wait = Math.max(0, Math.min(30, Math.ceil((deadline - Date.now()) / 1000)));
    const approval = unwrap(await client.GET("/v1/approvals/{id}", { params: { path: { id }, query: { wait } } }));
    if (approval.status !== "pending" || Date.now() >= deadline) return approval;
  }
}

type ApprovalRequest = NonNullable<paths["/v1/approvals"]["post"]["requestBody"]>["content"]["application/json"];

/** The approval was not granted (denied, expired, cancelled, or still pending after the wait): the action did not run. */
export class ApprovalNotGrantedError extends Error {
  override name = "ApprovalNotGrantedError";
  constructor(readonly approval: Approval) {
    super(`Approval ${approval.id} is ${approval.status}: the action was not taken.`);
  }
}

/**
 * Runs `fn` only with a person's approval of exactly `request.action`: asks (POST
 * /v1/approvals), waits with the long-poll, spends the approval on that action (POST
 * /v1/approvals/{id}/consume, once), then runs `fn(approval)`. Not approved in time, or
 * already spent: throws, and `fn` never runs.
 */
export async function withApproval<T>(
  client: AgentDraftClient,
  request: ApprovalRequest & { action: Record<string, unknown> },
  fn: (approval: Approval) => Promise<T> | T,
  { timeoutMs = 10 * 60_000 }: { timeoutMs?: number } = {},
): Promise<T> {
  const asked = unwrap(await client.POST("/v1/approvals", { body: request }));
  const decided = await waitForApproval(client, asked.id, { timeoutMs });
  if (decided.status !== "approved") throw new ApprovalNotGrantedError(decided);
  const spent = unwrap(await client.POST("/v1/approvals/{id}/consume", { params: { path: { id: asked.id } }, body: { action: request.action } }));
  return fn(spent);
}

/** The header that spends an approval a workspace policy asked for on a gated action (a hold, a lease). */
export const APPROVAL_HEADER = "AgentDraft-Approval-Id";

/**
 * Makes a call a workspace policy may gate (placing a hold, acquiring a lease in a trace that
 * starts at untrusted mail): when it answers 403 `approval_required`, waits for the approval the
 * server opened, then makes the same call once more with `AgentDraft-Approval-Id`, which spends
 * it on exactly that action. `call` gets the headers to send; the same body each time.
 * Not approved in time: throws ApprovalNotGrantedError, and the action is not taken.
 *
 *   const lease = await withPolicyApproval(client, (headers) =>
 *     client.POST("/v1/leases", { body: { resource: "deploy:prod", ttl_seconds: 600, priority: 90 }, headers }));
 */
export async function withPolicyApproval<T>(
  client: AgentDraftClient,
  call: (headers: Record<string, string>) => Promise<{ data?: T; error?: unknown; response: Response }>,
  { timeoutMs = 10 * 60_000, onApprovalRequired }: { timeoutMs?: number; onApprovalRequired?: (approvalId: string) => void } = {},
): Promise<T> {
  const first = await call({});
  if (first.response.ok || first.response.status !== 403) return unwrap(first);
  const problem = first.error as { code?: string; approval?: { id?: string } } | undefined;
  const id = problem?.code === "approval_required" ? problem.approval?.id : undefined;
  if (!id) return unwrap(first);
  onApprovalRequired?.(id);
  const decided = await waitForApproval(client, id, { timeoutMs });
  if (decided.status !== "approved") throw new ApprovalNotGrantedError(decided);
  return unwrap(await call({ [APPROVAL_HEADER]: id }));
}
