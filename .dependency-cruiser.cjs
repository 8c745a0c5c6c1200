// The floors of AgentDraft, checked by `npm run lint` (ARCHITECTURE.md draws them).
// From the bottom: db/ → lib/platform/ → lib/domains/ → lib/composition/ → app/, inngest/, cli/.
// An arrow may point down or sideways within a floor, never up; no two folders import each
// other; no file imports itself round a circle.
const TOP = "^(app|inngest|cli|bench|e2e|test)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "db-is-the-ground-floor",
      severity: "error",
      comment: "db/ (schema, migrations, client) stands on nothing of ours: a rule of the product belongs in lib/, and db/ must not know it.",
      from: { path: "^db/" },
      to: { path: "^(lib|app|inngest|cli)/" },
    },
    {
      name: "platform-knows-no-domain",
      severity: "error",
      comment: "lib/platform/ (errors, ids, config, the API door, jobs, the event outbox, the audit chain) serves every domain and imports none: register what a domain brings in lib/composition/ instead.",
      from: { path: "^lib/platform/" },
      to: { path: ["^lib/(domains|composition)/", TOP] },
    },
    {
      name: "domains-stand-below-composition",
      severity: "error",
      comment: "A domain (lib/domains/<name>/) never imports the composition layer or what stands on it: the lists of every operation, job kind and check are assembled above the domains, not inside one.",
      from: { path: "^lib/domains/" },
      to: { path: ["^lib/composition/", TOP] },
    },
    {
      name: "composition-stands-below-the-entry-points",
      severity: "error",
      comment: "lib/composition/ assembles the domains for app/, inngest/ and cli/; it never imports them.",
      from: { path: "^lib/composition/" },
      to: { path: TOP },
    },
    {
      name: "domains-meet-at-their-entries",
      severity: "error",
      comment: "One domain uses another only through that domain's public entry, lib/domains/<name>/index.ts, never its internal files: export what it needs there (or move the shared piece down to lib/platform/).",
      from: { path: "^lib/domains/([^/]+)/" },
      to: { path: "^lib/domains/[^/]+/", pathNot: ["^lib/domains/$1/", "^lib/domains/[^/]+/index\\.ts$"] },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "A circle of imports has no bottom: nothing in it can be read, tested or loaded alone. Move what both sides need one floor down.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-two-folders-import-each-other",
      severity: "error",
      comment: "Two folders that import each other are one room with a wall in it: move what both need down a floor, or merge them.",
      scope: "folder",
      from: { path: "^(lib|db|cli)/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["\\.test\\.tsx?$", "^test/", "^e2e/", "^\\.next/", "^sdk/dist/", "node_modules"] },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".tsx", ".mjs", ".js", ".json"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
