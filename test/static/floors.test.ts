import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The floors of ARCHITECTURE.md are checked by `npm run lint:floors`. These tests give the rules a
// small tree that breaks each of them once, and a tree that keeps them, and read what the check says.
const root = process.cwd();
const bin = path.join(root, "node_modules", ".bin", "depcruise");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function cruise(files: Record<string, string>): { code: number; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-floors-"));
  dirs.push(dir);
  fs.copyFileSync(path.join(root, ".dependency-cruiser.cjs"), path.join(dir, ".dependency-cruiser.cjs"));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@/*": ["./*"] } } }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const folders = [...new Set(Object.keys(files).map((f) => f.split("/")[0]!))];
  try {
    const out = execFileSync(bin, ["--config", ".dependency-cruiser.cjs", "--output-type", "err-long", ...folders], { cwd: dir, encoding: "utf8" });
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { code: e.status, out: e.stdout };
  }
}

const ok = {
  "db/schema.ts": "export const t = 1;\n",
  "lib/platform/ids.ts": 'import { t } from "../../db/schema";\nexport const id = t;\n',
  "lib/domains/holds/index.ts": 'export { place } from "./place";\n',
  "lib/domains/holds/place.ts": 'import { id } from "../../platform/ids";\nexport const place = id;\n',
  "lib/domains/approvals/gate.ts": 'import { place } from "../holds";\nexport const gate = place;\n',
  "lib/composition/operations.ts": 'import { gate } from "../domains/approvals/gate";\nexport const all = [gate];\n',
  "app/route.ts": 'import { all } from "../lib/composition/operations";\nexport const GET = all;\n',
};

describe("the floors check", () => {
  it("passes a tree where every arrow points down or sideways and domains meet at their entries", () => {
    const { code, out } = cruise(ok);
    expect(out).toContain("no dependency violations found");
    expect(code).toBe(0);
  });

  it("fails on each broken rule, naming it and saying why", () => {
    const { code, out } = cruise({
      ...ok,
      "db/schema.ts": 'import { id } from "../lib/platform/ids";\nexport const t = id;\n',
      "lib/platform/ids.ts": 'import { gate } from "../domains/approvals/gate";\nexport const id = gate;\n',
      "lib/domains/approvals/gate.ts": 'import { place } from "../holds/place";\nimport { all } from "../../composition/operations";\nexport const gate = [place, all];\n',
      "lib/composition/operations.ts": 'import { GET } from "../../app/route";\nexport const all = [GET];\n',
    });
    expect(code).not.toBe(0);
    for (const rule of [
      "db-is-the-ground-floor",
      "platform-knows-no-domain",
      "domains-stand-below-composition",
      "composition-stands-below-the-entry-points",
      "domains-meet-at-their-entries",
      "no-circular",
      "no-two-folders-import-each-other",
    ]) {
      expect(out, rule).toContain(`error ${rule}:`);
    }
    // The reason travels with the rule, so the message says what to do.
    expect(out).toContain("only through that domain's public entry");
  });

  it("refuses two domains that import each other through their entries", () => {
    const { code, out } = cruise({
      ...ok,
      "lib/domains/holds/place.ts": 'import { id } from "../../platform/ids";\nimport { gate } from "../approvals";\nexport const place = [id, gate];\n',
      "lib/domains/approvals/index.ts": 'export { gate } from "./gate";\n',
    });
    expect(code).not.toBe(0);
    expect(out).toMatch(/error no-two-folders-import-each-other: lib\/domains\/(holds|approvals)/);
  });
});
