import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import testRules from "./test/lint/test-rules.mjs";

const config = [
  ...nextVitals,
  ...nextTs,
  { ignores: ["node_modules/**", ".next/**", ".data/**", "next-env.d.ts", "db/migrations/**", "test-results/**", "e2e/artifacts/**", "sdk/dist/**", "build/**"] },
  {
    // Tests assert on JSON bodies of any shape.
    files: ["**/*.test.ts", "test/**/*.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // A test passes on any date and on any machine (test/lint/test-rules.mjs says why and how).
    files: ["**/*.test.ts", "test/**/*.ts", "e2e/**/*.ts", "sdk/**/*.test.ts"],
    ignores: ["test/lint/**"],
    plugins: { "agentdraft-tests": testRules },
    rules: { "agentdraft-tests/no-fixed-future-date": "error", "agentdraft-tests/no-wall-clock-budget": "error" },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
];

export default config;
