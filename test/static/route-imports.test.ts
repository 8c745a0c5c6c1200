import fs from "node:fs";
import path from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { beforeAll, describe, expect, it } from "vitest";

// Only the SMTP listener (lib/domains/mail/inbound/smtp-listener.ts, run by `agentdraft smtp`)
// verifies senders itself with mailauth, which brings joi, tldts, undici and its DNS code along.
// Every serverless function (each route of app/, instrumentation.ts) is traced from its static
// imports, and every one carries the mail parse worker, bundled whole by esbuild
// (bin/build-parse-worker.mjs): one that reached mailauth carried those megabytes on every cold
// start (the Inngest route did, through job-kinds → deliver-outbound → ingest-message →
// parse-message → sender-auth; the parse worker through parse-message, 2.5 MB of its 5.1). This walks the static, value imports of our own code from each entry (type-only
// imports and `await import()` are not followed: neither puts code into the route's graph at
// load), then every package reached, through the `dependencies` of its package.json.
const SMTP_ONLY = ["mailauth", "smtp-server", "joi", "tldts"];
const root = process.cwd();
const PARSE_WORKER = "lib/domains/mail/inbound/parse-worker.ts";

let result: ICruiseResult;
beforeAll(async () => {
  const out = await cruise(["app", "instrumentation.ts", PARSE_WORKER, "cli/smtp-command.ts"], {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.tsx?$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  });
  result = out.output as ICruiseResult;
}, 240_000);

const packageOf = (resolved: string) => {
  const rest = resolved.slice(resolved.lastIndexOf("node_modules/") + "node_modules/".length).split("/");
  return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
};

const manifests = new Map<string, string[]>();
/** A package's run-time dependencies (`dependencies` and optional ones); none for a Node built-in or a package not installed. */
function runtimeDependencies(name: string): string[] {
  let deps = manifests.get(name);
  if (!deps) {
    try {
      const m = JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { dependencies?: object; optionalDependencies?: object };
      deps = Object.keys({ ...m.dependencies, ...m.optionalDependencies });
    } catch {
      deps = [];
    }
    manifests.set(name, deps);
  }
  return deps;
}

/** Every package a package brings at run time: its `dependencies` (and optional ones), transitively. */
function packageClosure(start: Iterable<string>): Map<string, string> {
  const via = new Map<string, string>(); // package → the package that brought it
  const queue = [...start];
  for (const p of queue) if (!via.has(p)) via.set(p, "");
  while (queue.length) {
    const name = queue.shift()!;
    for (const dep of runtimeDependencies(name)) {
      if (via.has(dep)) continue;
      via.set(dep, name);
      queue.push(dep);
    }
  }
  return via;
}

/** The chains by which `entry`'s static value imports reach a package of SMTP_ONLY (empty: none). */
function smtpOnlyChains(entry: string): string[] {
  const modules = new Map(result.modules.map((m) => [m.source, m]));
  const prev = new Map<string, string | null>([[entry, null]]);
  const packages = new Map<string, string>(); // package → the first file found importing it
  const queue = [entry];
  while (queue.length) {
    const source = queue.shift()!;
    for (const d of modules.get(source)?.dependencies ?? []) {
      if (d.dynamic || d.dependencyTypes.includes("type-only") || d.coreModule) continue;
      if (d.resolved.includes("node_modules/")) {
        if (!packages.has(packageOf(d.resolved))) packages.set(packageOf(d.resolved), source);
        continue;
      }
      if (prev.has(d.resolved)) continue;
      prev.set(d.resolved, source);
      queue.push(d.resolved);
    }
  }
  const closure = packageClosure(packages.keys());
  const chains: string[] = [];
  for (const banned of SMTP_ONLY) {
    if (!closure.has(banned)) continue;
    let top = banned;
    const pkgChain = [banned];
    while (closure.get(top)) pkgChain.unshift((top = closure.get(top)!));
    const files = [packages.get(top)!];
    while (prev.get(files[0]!)) files.unshift(prev.get(files[0]!)!);
    chains.push([...files, ...pkgChain].join(" → "));
  }
  return chains;
}

describe("what a route's function loads", () => {
  it("no route, page, instrumentation.ts or the parse worker reaches mailauth, smtp-server, joi or tldts through static imports", () => {
    const entries = result.modules.map((m) => m.source).filter((s) => s === "instrumentation.ts" || s === PARSE_WORKER || /^app\/.*\/(route|page|layout)\.tsx?$/.test(s));
    expect(entries).toContain(PARSE_WORKER);
    expect(entries).toContain("app/api/inngest/route.ts");
    expect(entries).toContain("app/api/inbound/raw/route.ts");
    expect(entries.length).toBeGreaterThan(20);
    expect(entries.flatMap((e) => smtpOnlyChains(e).map((c) => `${e}: ${c}`))).toEqual([]);
  });

  it("the walk finds them from the SMTP command, through the listener's sender verification", () => {
    const chains = smtpOnlyChains("cli/smtp-command.ts");
    expect(chains.find((c) => c.endsWith("→ mailauth"))).toContain("lib/domains/mail/inbound/verify-sender.ts");
    expect(chains.some((c) => c.endsWith("→ smtp-server"))).toBe(true);
    expect(chains.some((c) => c.endsWith("→ joi"))).toBe(true);
  });
});
