import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A database on the TEST_DATABASE_URL server migrated for this run: each test file gets a copy of it. */
    databaseTemplateUrl: string;
  }
}

/** Runs one statement on the TEST_DATABASE_URL server's maintenance database. */
export async function onServer(statement: string, values: unknown[] = []): Promise<string[]> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL! });
  await client.connect();
  try {
    return (await client.query<{ name?: string }>(statement, values)).rows.map((r) => r.name ?? "");
  } finally {
    await client.end();
  }
}

/**
 * Creates this run's template database on the TEST_DATABASE_URL server and migrates it with the
 * product's own `agentdraft db migrate`; every test file then gets a database of its own copied
 * from it (test/setup-db.ts: CREATE DATABASE … TEMPLATE), so files that run at once never see
 * each other's rows or background work. Dropped after the run.
 */
export default async function setup(project: TestProject) {
  const name = `agentdraft_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  await onServer(`create database "${name}"`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const root = path.resolve(import.meta.dirname, "..");
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url.toString(), DATABASE_DRIVER: "pg" };
  delete env.DATABASE_URL_UNPOOLED;
  await promisify(execFile)(process.execPath, [path.join(root, "bin/agentdraft.mjs"), "db", "migrate"], { cwd: root, env });
  project.provide("databaseTemplateUrl", url.toString());

  return async () => {
    if (process.env.KEEP_TEST_DATABASE) return;
    // The files' copies too: a file whose tests were all skipped never ran its own drop.
    const copies = await onServer("select datname as name from pg_database where starts_with(datname, $1)", [`${name}_`]);
    for (const db of [...copies, name]) await onServer(`drop database if exists "${db}" with (force)`);
  };
}
