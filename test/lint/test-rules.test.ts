import { Linter } from "eslint";
import tsParser from "@typescript-eslint/parser";
import { describe, expect, it } from "vitest";
import testRules from "./test-rules.mjs";

// The two rules `npm run lint` applies to test files, on small sources: what each catches, and
// what it leaves alone.
const linter = new Linter({ configType: "flat" });
const lint = (code: string) =>
  linter
    .verify(code, [{ files: ["**/*.ts"], languageOptions: { parser: tsParser }, plugins: { t: testRules }, rules: { "t/no-fixed-future-date": "error", "t/no-wall-clock-budget": "error" } }], "x.test.ts")
    .map((m) => `${m.line}:${m.ruleId}`);
const nextYear = new Date().getUTCFullYear() + 1;

describe("no-fixed-future-date", () => {
  it("catches a later year's date in a string, a template, Date.UTC and new Date", () => {
    expect(lint(`const a = "${nextYear}-07-10T14:00:00Z";\nconst b = \`${nextYear}-01-01\`;\nDate.UTC(${nextYear}, 0, 1);\nnew Date(${nextYear}, 0, 1);`)).toEqual([
      "1:t/no-fixed-future-date",
      "2:t/no-fixed-future-date",
      "3:t/no-fixed-future-date",
      "4:t/no-fixed-future-date",
    ]);
  });

  it("leaves past dates and dates from the clock alone", () => {
    expect(lint(`const a = "2024-03-31T01:00:00Z";\nnew Date(Date.now() + 86_400_000);\nnew Date(2024, 2, 31);\nconst n = 20301;`)).toEqual([]);
  });
});

describe("no-wall-clock-budget", () => {
  it("catches an upper bound on elapsed time, directly, through variables, assignments in callbacks and arrays", () => {
    const code = [
      "const started = performance.now();",
      "expect(performance.now() - started).toBeLessThan(5_000);",
      "let endedAt = 0; setTimeout(() => { endedAt = Date.now(); });",
      "expect(endedAt - started).toBeLessThanOrEqual(5_000);",
      "const lags = []; lags.push(Date.now() - started);",
      "expect(Math.max(...lags)).toBeLessThan(500);",
      "expect(new Date().getTime() - started, 'msg').not.toBeLessThan(1);",
    ].join("\n");
    expect(lint(code)).toEqual(["2:t/no-wall-clock-budget", "4:t/no-wall-clock-budget", "6:t/no-wall-clock-budget", "7:t/no-wall-clock-budget"]);
  });

  it("leaves alone what a slow machine cannot break: time left before an expiry, lower bounds, responses, a stated enforced deadline", () => {
    const code = [
      "const expiresAt = Date.parse(body.expires_at);",
      "expect(expiresAt - Date.now()).toBeLessThanOrEqual(3_600_000);",
      "const started = Date.now();",
      "expect(Date.now() - started).toBeGreaterThan(1_000);",
      "const res = await fetch(url, { headers: { date: String(Date.now()) } });",
      "expect(res.status).toBeLessThan(300);",
      "// enforced deadline: MAIL_PARSE_TIMEOUT_MS ends the parse",
      "expect(Date.now() - started).toBeLessThan(15_000);",
    ].join("\n");
    expect(lint(code)).toEqual([]);
  });
});
