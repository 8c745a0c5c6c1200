// A second, separate API server process for tests that need several instances on one
// database. Prints its URL on the first line of stdout.
import { startApiServer } from "./api-server";

const server = await startApiServer();
process.stdout.write(server.url + "\n");
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
