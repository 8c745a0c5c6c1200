// npm run sdk:generate — writes sdk/src/schema.ts from the app's OpenAPI registry, and
// sdk/src/ai-tool-definitions.ts from the MCP tools' zod definitions.
import fs from "node:fs";
import { generateSchemaTypes, SCHEMA_FILE } from "./generate-types";
import { AI_TOOLS_FILE, generateAiToolDefinitions } from "./generate-ai-tools";

fs.writeFileSync(SCHEMA_FILE, await generateSchemaTypes());
console.log(`wrote ${SCHEMA_FILE}`);
fs.writeFileSync(AI_TOOLS_FILE, generateAiToolDefinitions());
console.log(`wrote ${AI_TOOLS_FILE}`);
