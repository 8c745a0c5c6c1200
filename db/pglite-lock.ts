import fs from "node:fs";
import path from "node:path";

/** Thrown when another process holds the embedded database (PGlite allows one process per data directory). */
export class DatabaseBusyError extends Error {
  override name = "DatabaseBusyError";
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes an exclusive lock file beside the PGlite data directory, so a second process
 * (say, the CLI while `npm run dev` serves) gets a clear error instead of corrupting it.
 * A lock left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" });
      const release = () => {
        try {
          if (fs.readFileSync(lockPath, "utf8") === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
      process.once("exit", release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number(fs.readFileSync(lockPath, "utf8"));
      if (holder === process.pid) return () => {};
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new DatabaseBusyError(
          `The embedded database in ${dataDir} is in use by process ${holder} (probably \`npm run dev\`). ` +
            `Stop that process first, or point DATABASE_URL at a Postgres server to share one database.`,
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DatabaseBusyError(`Could not lock the embedded database in ${dataDir}.`);
}
