import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../cli/commands";
import { buildOpenApiDocument } from "../../lib/composition/openapi-document";

const SKILL = fs.readFileSync("skills/agentdraft/SKILL.md", "utf8");

/** `npx agentdraft key create --workspace ...` → "key create": the words before the first flag, as the CLI reads them. */
function cliCommands(text: string): string[] {
  return [...text.matchAll(/npx agentdraft ([^\n`|#]*)/g)].map((m) => {
    const words = (m[1] ?? "").trim().split(/\s+/);
    const firstFlag = words.findIndex((w) => w.startsWith("-"));
    return (firstFlag === -1 ? words : words.slice(0, firstFlag)).slice(0, 2).join(" ");
  });
}

/** Every request the skill shows: `POST /v1/...` in prose, and `curl ... $API/...` (POST with -d or -X POST). */
function requests(text: string): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  for (const m of text.matchAll(/\b(GET|POST|PATCH|DELETE) (\/v1\/[^\s`?]+)/g)) out.push({ method: m[1]!, path: m[2]! });
  for (const line of text.replace(/\\\n\s*/g, " ").split("\n")) {
    const m = /curl -s (?:-X (\w+) )?"?\$API(\/[^\s"?]*)/.exec(line);
    if (!m) continue;
    out.push({ method: m[1] ?? (/ -d '/.test(line) ? "POST" : "GET"), path: `/v1${m[2]}` });
  }
  return out;
}

describe("skills/agentdraft/SKILL.md", () => {
  it("starts with the agent-skill frontmatter: name and description", () => {
    const front = /^---\n([\s\S]*?)\n---\n/.exec(SKILL)?.[1] ?? "";
    expect(front).toMatch(/^name: agentdraft$/m);
    expect(/^description: (.+)$/m.exec(front)?.[1]?.length).toBeGreaterThan(50);
  });

  it("names only real CLI commands", () => {
    const named = cliCommands(SKILL);
    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect(Object.keys(COMMANDS), `npx agentdraft ${name}`).toContain(COMMANDS[name] ? name : name.split(" ")[0]);
    expect(named).toEqual(expect.arrayContaining(["db migrate", "workspace create", "agent create", "key create"]));
  });

  it("shows only requests the API has (method and path, from the OpenAPI document)", () => {
    const doc = buildOpenApiDocument("/api") as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((method) => ({ method: method.toUpperCase(), pattern: new RegExp(`^${p.replace(/^\/api/, "").replace(/\{[^}]+\}/g, "[^/]+")}$`) })),
    );
    const shown = requests(SKILL);
    expect(shown.length).toBeGreaterThan(20);
    for (const r of shown) {
      const path = r.path.replace(/\/$/, "");
      expect(routes.some((x) => x.method === r.method && x.pattern.test(path)), `${r.method} ${r.path}`).toBe(true);
    }
  });
});
