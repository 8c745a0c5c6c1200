import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { problemResponse, toProblem } from "./problem";
import { AppError } from "../errors";

describe("toProblem", () => {
  it("masks unknown errors as a 500 that names the request id, and logs the real error", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const problem = toProblem(new Error("connection string postgres://u:secret@db leaked"), "req_123");
    expect(problem).toEqual({
      type: "/docs/errors#internal_error",
      title: "Internal error",
      status: 500,
      code: "internal_error",
      detail: "Something went wrong on our side. Quote request req_123 if you report it.",
      request_id: "req_123",
    });
    expect(JSON.stringify(problem)).not.toContain("secret");
    expect(log).toHaveBeenCalledWith(expect.stringContaining("req_123"), expect.any(Error));
    log.mockRestore();
  });

  it("turns zod errors into validation_failed with one entry per issue", () => {
    const parsed = z.object({ a: z.string(), b: z.object({ c: z.number() }) }).safeParse({ a: 1, b: { c: "x" } });
    const problem = toProblem(parsed.error, "req_1");
    expect(problem.status).toBe(400);
    expect(problem.errors).toEqual([
      { field: "a", message: expect.any(String) },
      { field: "b.c", message: expect.any(String) },
    ]);
  });

  it("carries an AppError's code, extra members and headers", async () => {
    const res = problemResponse(new AppError("rate_limited", "slow down", { limit: 5 }, { "retry-after": "3" }), "req_2");
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).toBe("3");
    expect(await res.json()).toMatchObject({ code: "rate_limited", detail: "slow down", limit: 5, title: "Too many requests" });
  });
});
