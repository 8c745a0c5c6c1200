import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** Creates a fresh database on the TEST_DATABASE_URL server for this run, and drops it after. */
export default async function setup(project: TestProject) {
  const admin = new URL(process.env.TEST_DATABASE_URL!);
  const name = `agentdraft_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`create database "${name}"`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  project.provide("databaseUrl", url.toString());

  return async () => {
    if (process.env.KEEP_TEST_DATABASE) return;
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    await c.query(`drop database if exists "${name}" with (force)`);
    await c.end();
  };
}
