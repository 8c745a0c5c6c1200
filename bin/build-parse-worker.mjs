#!/usr/bin/env node
// Part of `npm run build`: bundles the mail parse worker (lib/domains/mail/inbound/parse-worker.ts and
// every module it imports, packages included) into one self-contained file, build/parse-worker.mjs.
// next.config.ts traces that file into every server function, so a deployment (Vercel, `output:
// "standalone"`) parses mail on worker threads with their timeout, with no TypeScript loader and
// no source tree at run time. Development and tests run the source through tsx instead.
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// `--outfile <path>`: elsewhere (a test building a deployment's layout in a temporary directory).
const at = process.argv.indexOf("--outfile");
const outfile = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(root, "build/parse-worker.mjs");
const started = performance.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: ["lib/domains/mail/inbound/parse-worker.ts"],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __agentdraftRequire } from "node:module"; const require = __agentdraftRequire(import.meta.url);' },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`parse worker: ${path.relative(root, outfile)} (${(bytes / 1e6).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`);
