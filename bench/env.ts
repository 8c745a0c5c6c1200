import { resetEnvCache } from "../lib/platform/config/env";

export function setEnvForBench(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetEnvCache();
}
