import { guardProcessEnv } from "./env-guard";

// Unit test files share their worker's modules (vitest.config.ts): each leaves process.env as it found it.
guardProcessEnv();
