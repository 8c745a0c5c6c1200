import fs from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { ENV_DOCS, ENV_GROUPS, envSchema, OTHER_ENV_DOCS, type EnvDoc } from "../../platform/config/env";
import { CRON_JOBS, WORK_KINDS } from "../job-kinds";
import { DOCS_PAGES } from "./pages";
import { anchorer } from "./render-guide";

/**
 * What the docs generate from code, so it cannot drift (`npm run docs:generate` writes it;
 * lib/composition/docs/generated-docs.test.ts fails while a file is stale). In markdown, each generated part
 * sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`:
 * - `env`: every variable of lib/platform/config/env.ts (docs/configuration.md), by group;
 * - `jobs`, `crons`: every kind of background work and housekeeping job of lib/composition/job-kinds.ts
 *   (docs/background-work.md);
 * - `docs-index`: the pages of lib/composition/docs/pages.ts (the README);
 * - `toc`: the file's own `##` and `###` sections, linked (every docs page).
 * `.env.example` is generated whole, from lib/platform/config/env.ts.
 */

const MARKDOWN = ["README.md", "CONTRIBUTING.md", "bench/README.md"];

/** The files to generate, relative to the repository's root, with what they must hold. */
export function generatedFiles(root = process.cwd()): { file: string; content: string }[] {
  const docs = fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
  const out: { file: string; content: string }[] = [];
  for (const file of [...MARKDOWN, ...docs].sort()) {
    const before = fs.readFileSync(path.join(root, file), "utf8");
    let text = fillRegion(before, "env", envMarkdown);
    text = fillRegion(text, "jobs", jobsMarkdown);
    text = fillRegion(text, "crons", cronsMarkdown);
    text = fillRegion(text, "docs-index", () => docsIndexMarkdown(file));
    text = fillRegion(text, "toc", () => tocMarkdown(text));
    if (text.includes("<!-- generated:")) out.push({ file, content: text });
  }
  out.push({ file: ".env.example", content: envExample() });
  return out;
}

function fillRegion(text: string, name: string, make: () => string): string {
  const re = new RegExp(`<!-- generated:${name} -->\\n[\\s\\S]*?<!-- /generated:${name} -->`, "g");
  return re.test(text) ? text.replace(re, () => `<!-- generated:${name} -->\n${make()}<!-- /generated:${name} -->`) : text;
}

/** The markdown's headings outside code blocks, in order: [depth, text]. */
export function headings(markdown: string): [number, string][] {
  const out: [number, string][] = [];
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const m = !fence && /^(#{1,6}) (.+)$/.exec(line);
    if (m) out.push([m[1]!.length, m[2]!.trim()]);
  }
  return out;
}

/** A contents list of the file's `##` sections (and their `###` ones), linked to their anchors as GitHub and the app make them. */
function tocMarkdown(markdown: string): string {
  const anchor = anchorer();
  const items = headings(markdown)
    .map(([depth, text]) => ({ depth, text, id: anchor(text) }))
    .filter((h) => h.depth === 2 || h.depth === 3)
    .map((h) => `${h.depth === 3 ? "  " : ""}- [${h.text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")}](#${h.id})\n`);
  return items.length ? `**Contents**\n\n${items.join("")}` : "";
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

/** The schema's own default of a variable, if it has one. */
export function schemaDefault(schema: z.ZodType): unknown {
  const def = schema._zod.def as { type: string; defaultValue?: unknown; in?: z.ZodType };
  if (def.type === "default") return def.defaultValue;
  if (def.type === "pipe" && def.in) return schemaDefault(def.in);
  return undefined;
}

const shownDefault = (value: unknown) => (value === undefined ? "unset" : value === "" ? "empty" : `\`${String(value)}\``);

/** Every documented variable with its default in words: the doc's own, else the schema's. */
export function envVariables(): { name: string; doc: EnvDoc; defaultText: string; schemaDefault: unknown; inSchema: boolean }[] {
  const shape = envSchema.shape as Record<string, z.ZodType>;
  const fromSchema = Object.entries(ENV_DOCS as Record<string, EnvDoc>).map(([name, doc]) => {
    const value = schemaDefault(shape[name]!);
    return { name, doc, defaultText: doc.default ?? shownDefault(value), schemaDefault: value, inSchema: true };
  });
  const others = Object.entries(OTHER_ENV_DOCS).map(([name, doc]) => ({ name, doc, defaultText: doc.default, schemaDefault: undefined, inSchema: false }));
  return [...fromSchema, ...others];
}

function envMarkdown(): string {
  const vars = envVariables();
  return ENV_GROUPS.map((group) => {
    const rows = vars.filter((v) => v.doc.group === group);
    const head = `## ${group}\n\n| Variable | Default | In production | What it does |\n| --- | --- | --- | --- |\n`;
    return head + rows.map((v) => `| \`${v.name}\` | ${cell(v.defaultText)} | ${cell(v.doc.production ?? "")} | ${cell(v.doc.about)} |\n`).join("") + "\n";
  }).join("");
}

const duration = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

function jobsMarkdown(): string {
  const rows = WORK_KINDS.map((k) => {
    const doc = k.doc;
    if (!doc) throw new Error(`the job kind ${k.name} has no doc in lib/composition/job-kinds.ts`);
    const limits = [
      `${k.limits.perWorkspace} per workspace`,
      k.limits.perKey ? `${k.limits.perKey} per ${doc.key ?? "key"}` : null,
      `timeout ${duration(k.limits.timeoutMs)}`,
      k.debounceMs ? `debounced ${duration(k.debounceMs)}` : null,
      k.cancellable ? "cancelled when its item settles or moves" : null,
    ].filter(Boolean);
    return `| \`${k.name}\` | ${cell(doc.run)} | ${cell(doc.due)} | ${limits.join("; ")} | ${cell(doc.only ?? "always")} |\n`;
  });
  return `| Kind | One run is | Due | Limits | Runs |\n| --- | --- | --- | --- | --- |\n${rows.join("")}\n${WORK_KINDS.length} kinds.\n`;
}

function cronsMarkdown(): string {
  const rows = CRON_JOBS.map((c) => {
    if (!c.doc) throw new Error(`the housekeeping job ${c.name} has no doc in lib/composition/job-kinds.ts`);
    return `| \`${c.name}\` | \`${c.cron}\` (every ${duration(c.everyMs)}) | ${cell(c.doc)} | ${c.whileIdle ? "yes" : "no: after activity only"} |\n`;
  });
  return `| Job | Schedule | What it does | Runs while idle |\n| --- | --- | --- | --- |\n${rows.join("")}`;
}

function docsIndexMarkdown(file: string): string {
  const rel = (target: string) => path.posix.relative(path.posix.dirname(file), target) || target;
  const rows = DOCS_PAGES.map((p) => `| [${p.title}](${p.file ? rel(`docs/${p.file}`) : p.route}) | \`${p.route}\` | ${cell(p.about)} |\n`);
  return `| Page | Served at | What it covers |\n| --- | --- | --- |\n${rows.join("")}`;
}

const wrap = (text: string, width = 98): string[] => {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
};

/** .env.example: every variable the app reads, commented out, with what it does. */
export function envExample(): string {
  const vars = envVariables().filter((v) => v.inSchema);
  const plain = (s: string) => s.replace(/\*\*/g, "");
  const parts = [
    "# AgentDraft's environment variables, generated from lib/platform/config/env.ts by `npm run docs:generate`",
    "# (edit the descriptions there, not here). On one machine nothing needs setting: `npm run dev`",
    "# runs with an embedded database and no accounts. Copy what you need to .env.local and uncomment",
    "# it. docs/configuration.md says more; docs/production.md says what production needs.",
  ];
  for (const group of ENV_GROUPS) {
    const rows = vars.filter((v) => v.doc.group === group);
    if (!rows.length) continue;
    parts.push("", `## ${group}`);
    for (const v of rows) {
      parts.push("");
      for (const l of wrap(plain(v.doc.about))) parts.push(`# ${l}`);
      parts.push(`# Default: ${plain(v.defaultText)}.`);
      if (v.doc.production) for (const l of wrap(`In production: ${plain(v.doc.production)}.`)) parts.push(`# ${l}`);
      const value = v.schemaDefault === undefined || typeof v.schemaDefault === "object" ? "" : String(v.schemaDefault);
      parts.push(`# ${v.name}=${value}`);
    }
  }
  return parts.join("\n") + "\n";
}
