import { resetEnvCache } from "../lib/config/env";

export function setEnvForBench(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetEnvCache();
}
