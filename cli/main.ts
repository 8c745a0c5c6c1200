import { parseArgs } from "node:util";
import { COMMANDS } from "./commands";
import { cliFailure, UsageError } from "./errors";
import { ensureSchema } from "./ensure-schema";

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: npx agentdraft <command> [flags] [--json]",
    "",
    "Commands:",
    ...lines,
    "",
    "Every command accepts --json for machine-readable output.",
    "The database comes from DATABASE_URL (unset: the embedded database in AGENTDRAFT_DATA_DIR, default .data/).",
  ].join("\n");
}

/** Runs one CLI invocation; returns the process exit code. Output goes to the given streams. */
type Sink = { write(text: string): unknown };

export async function runCli(argv: string[], out: Sink = process.stdout, err: Sink = process.stderr): Promise<number> {
  const json = argv.includes("--json");
  try {
    // The command is the first two words before any flag: `key create --workspace ws_...`.
    const firstFlag = argv.findIndex((a) => a.startsWith("-"));
    const words = (firstFlag === -1 ? argv : argv.slice(0, firstFlag)).slice(0, 2);
    if (argv.length === 0 || argv.includes("--help") || argv.includes("-h") || words[0] === "help") {
      out.write(help() + "\n");
      return 0;
    }
    const name = words.join(" ");
    const command = COMMANDS[name];
    if (!command) {
      throw new UsageError(`Unknown command "${name}". Run \`npx agentdraft --help\` to list the commands.`);
    }
    const options = Object.fromEntries(
      [...Object.entries(command.flags), ["json", "boolean"] as const].map(([k, type]) => [k, { type }]),
    );
    let values: Record<string, string | boolean | undefined>;
    try {
      ({ values } = parseArgs({ args: argv.slice(words.length), options, allowPositionals: false, strict: true }));
    } catch (e) {
      throw new UsageError(`${((e as Error).message.split("\n")[0] ?? "").replace(/\.?$/, ".")} Usage: ${command.usage}`);
    }
    if (command.needsSchema !== false) await ensureSchema(err);
    const result = await command.run(values, err);
    out.write(json ? JSON.stringify(result.json, null, 2) + "\n" : result.human.join("\n") + "\n");
    return 0;
  } catch (e) {
    const failure = cliFailure(e);
    if (json) {
      err.write(JSON.stringify({ error: { code: failure.code, message: failure.message, errors: failure.errors } }) + "\n");
    } else {
      err.write(`error: ${failure.message}\n`);
    }
    return failure.exitCode;
  }
}
