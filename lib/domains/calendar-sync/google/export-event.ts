import { exportsOfEvent, exportRetryDelaySeconds, listProblemExports as listProblems, MAX_EXPORT_ATTEMPTS, remoteEventIdFor, retryExport, runDueExports as runDue, runExport as runOne } from "../exports";

// Google's exports run on the shared engine (lib/domains/calendar-sync/exports.ts); these are its Google-facing names.
export { exportsOfEvent, exportRetryDelaySeconds, MAX_EXPORT_ATTEMPTS, retryExport };

/**
 * The Google event id for an AgentDraft event: derived from our id (base32hex, as Google
 * requires), so a second insert of the same event is refused by Google (409) instead of
 * creating a duplicate.
 */
export const googleEventIdFor = remoteEventIdFor;

const google = async () => (await import("./provider")).googleProvider;

/** One unit of work: one Google export. */
export const runExport = async (exportId: string) => runOne(await google(), exportId);

/** The job: runs due Google exports. Safe to run concurrently with itself. */
export const runDueExports = async (limit = 20) => runDue(await google(), limit);

/** Google exports that need a person's attention (failed) or are still retrying, newest first. */
export const listProblemExports = (workspaceId: string, limit = 50) => listProblems(workspaceId, limit, "google");
