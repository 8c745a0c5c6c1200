import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FUNCTIONS_FOLDER, readFunctionFiles } from "./function-files";

const migrationsFolder = path.join(import.meta.dirname, "migrations");
/** The last versioned migration that may define a function: from the next one on, db/functions does. */
const LAST_WITH_FUNCTION_BODIES = 56;

/** What a versioned migration restates of the functions db/functions defines: a body (CREATE) or a setting (ALTER … SET/RESET, which the file's next CREATE OR REPLACE would undo). */
function restated(file: string, sqlText: string, names: Set<string>): string[] {
  const text = sqlText.replace(/--[^\n]*/g, "");
  const found: string[] = [];
  for (const m of text.matchAll(/\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?"?(\w+)"?/gi)) {
    if (names.has(m[1]!.toLowerCase())) found.push(`${file}: CREATE FUNCTION ${m[1]}`);
  }
  for (const m of text.matchAll(/\bALTER\s+FUNCTION\s+(?:public\.)?"?(\w+)"?\s*\([^)]*\)\s*(SET|RESET)\b/gi)) {
    if (names.has(m[1]!.toLowerCase())) found.push(`${file}: ALTER FUNCTION ${m[1]} ${m[2]}`);
  }
  return found;
}

describe("db/functions", () => {
  it("each file defines its own name only, with CREATE OR REPLACE (never DROP: a deploy keeps the function working)", async () => {
    const files = await readFunctionFiles();
    expect(files.length).toBeGreaterThan(30);
    for (const f of files) {
      const created = [...f.text.matchAll(/^\s*CREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s+("?[\w.]+"?)\s*\(/gim)];
      expect(created.length, f.file).toBeGreaterThan(0);
      for (const m of created) {
        expect(m[1], `${f.file}: CREATE OR REPLACE, so an existing database takes it`).toBeTruthy();
        expect(m[2], `${f.file} creates ${m[2]}`).toBe(f.name);
      }
      expect(f.text, f.file).not.toMatch(/^\s*DROP\s/im);
    }
  });

  it("no versioned migration after 0056 restates a function a file defines (change the file instead)", async () => {
    const names = new Set((await readFunctionFiles(FUNCTIONS_FOLDER)).map((f) => f.name));
    const offending = readdirSync(migrationsFolder)
      .filter((f) => f.endsWith(".sql") && Number(f.slice(0, 4)) > LAST_WITH_FUNCTION_BODIES)
      .flatMap((f) => restated(f, readFileSync(path.join(migrationsFolder, f), "utf8"), names));
    expect(offending, "edit db/functions/<name>.sql instead (CONTRIBUTING.md, Changing a database function)").toEqual([]);
  });

  it("the guard catches a migration that restates a body or a setting, and lets one add a column or drop a function", () => {
    const names = new Set(["agentdraft_iso", "agentdraft_admit"]);
    const migration = [
      'ALTER TABLE "holds" ADD COLUMN "note" text;--> statement-breakpoint',
      "-- CREATE OR REPLACE FUNCTION agentdraft_admit( in a comment is no statement",
      "CREATE OR REPLACE FUNCTION public.agentdraft_iso(t timestamptz) RETURNS text LANGUAGE sql AS $$ select '' $$;",
      "ALTER FUNCTION agentdraft_admit(text, text) SET plan_cache_mode = auto;",
      "ALTER FUNCTION agentdraft_admit(text, text) OWNER TO someone;",
      "DROP FUNCTION IF EXISTS agentdraft_admit(text);",
      "CREATE FUNCTION agentdraft_other() RETURNS int LANGUAGE sql AS $$ select 1 $$;",
    ].join("\n");
    expect(restated("0057_x.sql", migration, names)).toEqual(["0057_x.sql: CREATE FUNCTION agentdraft_iso", "0057_x.sql: ALTER FUNCTION agentdraft_admit SET"]);
  });
});
