#!/usr/bin/env node
// The operator CLI. TypeScript sources run through tsx, so the CLI and the server share lib/ and db/.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../cli/main.ts");
const { closeDb } = await import("../db/client.ts");
const code = await runCli(process.argv.slice(2));
await closeDb().catch(() => {});
process.exitCode = code;
