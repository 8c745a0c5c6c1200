import type { components } from "./schema.js";

/** An RFC 9457 problem as the AgentDraft API answers every error. */
export type Problem = components["schemas"]["Problem"];

/** An API call that failed: the problem's fields, typed; `problem` has every member (e.g. `conflicts`). */
export class AgentDraftError extends Error {
  override name = "AgentDraftError";
  /** The stable machine code, e.g. `hold_conflict`, `validation_failed`, `not_found`. */
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly requestId: string | undefined;
  /** For validation_failed: one entry per bad field. */
  readonly errors: { field: string; message: string }[];
  readonly problem: Problem & Record<string, unknown>;

  constructor(problem: Problem & Record<string, unknown>) {
    super(`${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.code = problem.code;
    this.status = problem.status;
    this.title = problem.title;
    this.requestId = problem.request_id;
    this.errors = problem.errors ?? [];
  }
}

function isProblem(value: unknown): value is Problem & Record<string, unknown> {
  const v = value as Partial<Problem> | null;
  return typeof v === "object" && v !== null && typeof v.code === "string" && typeof v.status === "number";
}

/** The error of a failed call, as an AgentDraftError (a non-problem body, e.g. from a proxy, gets code `http_error`). */
export function toAgentDraftError(error: unknown, response: Response): AgentDraftError {
  if (isProblem(error)) return new AgentDraftError(error);
  return new AgentDraftError({
    type: "about:blank",
    title: response.statusText || "HTTP error",
    status: response.status,
    detail: `The server answered ${response.status} without a problem document.`,
    code: "http_error",
    request_id: response.headers.get("x-request-id") ?? "",
  } as Problem & Record<string, unknown>);
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/**
 * The data of a successful call, or a thrown AgentDraftError:
 * `const hold = unwrap(await client.POST("/v1/holds", { body }))`.
 */
export function unwrap<T>(result: Result<T>): T {
  if (result.error !== undefined || !result.response.ok) throw toAgentDraftError(result.error, result.response);
  return result.data as T;
}
