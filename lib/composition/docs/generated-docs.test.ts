import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_DOCS, envSchema } from "../../platform/config/env";
import { CRON_JOBS, WORK_KINDS } from "../job-kinds";
import { envVariables, generatedFiles } from "./generate-docs";

// What the docs generate from code (lib/composition/docs/generate-docs.ts) must be what is committed: the
// configuration page and .env.example from lib/platform/config/env.ts, the job kinds from the registry,
// the README's index of the docs, each page's contents.
describe("generated docs", () => {
  it.each(generatedFiles().map((g) => [g.file, g.content] as const))("%s is up to date (npm run docs:generate rewrites it)", (file, content) => {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "(missing)";
    expect(committed === content, `${file} is stale: run npm run docs:generate`).toBe(true);
  });

  it("documents every variable of lib/platform/config/env.ts, and says each default the schema has", () => {
    expect(Object.keys(ENV_DOCS).sort()).toEqual(Object.keys(envSchema.shape).sort());
    const page = fs.readFileSync("docs/configuration.md", "utf8");
    const example = fs.readFileSync(".env.example", "utf8");
    for (const v of envVariables()) {
      expect(page, v.name).toContain(`| \`${v.name}\` |`);
      if (v.inSchema) expect(example, v.name).toMatch(new RegExp(`^# ${v.name}=`, "m"));
      // A default put in words must not contradict the schema's own.
      if (v.doc.default && v.schemaDefault !== undefined && v.schemaDefault !== "") expect(v.doc.default, v.name).toContain(String(v.schemaDefault));
    }
  });

  it("lists every job kind and housekeeping job of the registry, with what triggers it and its limits", () => {
    const page = fs.readFileSync("docs/background-work.md", "utf8");
    for (const k of WORK_KINDS) {
      expect(k.doc, `${k.name} has no doc in lib/composition/job-kinds.ts`).toBeDefined();
      expect(Boolean(k.doc?.key), `${k.name}: doc.key says what its per-key limit is per`).toBe(k.limits.perKey !== undefined);
      expect(Boolean(k.doc?.only), `${k.name}: doc.only says when it is enabled`).toBe(k.enabled !== undefined);
      expect(page).toMatch(new RegExp(`^\\| \`${k.name.replace(/\./g, "\\.")}\` \\| .+ \\| ${k.limits.perWorkspace} per workspace`, "m"));
    }
    for (const c of CRON_JOBS) expect(page).toContain(`| \`${c.name}\` | \`${c.cron}\``);
  });

  it("the README's production settings are the ones lib/platform/config/env.ts says production needs", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    const section = readme.slice(readme.indexOf("## Production"), readme.indexOf("## Documentation"));
    const named = [...section.matchAll(/^\| (.+?) \| /gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((n) => n[1]!));
    expect(named.length).toBeGreaterThanOrEqual(6);
    const docs = ENV_DOCS as Record<string, { production?: string }>;
    for (const name of named) expect(docs[name]?.production, `${name} in lib/platform/config/env.ts`).toBeTruthy();
  });

  it("keeps the README a five-minute read, with the two commands CI and newcomers run", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toMatch(/^npm test$/m);
  });
});
