// npm run sdk:generate — writes sdk/src/schema.ts from the app's OpenAPI registry,
// sdk/src/ai-tool-definitions.ts from the MCP tools' zod definitions, and the Python SDK's
// generated half (sdk-python/agentdraft/models.py, _operations.py) and its shared test vectors.
import fs from "node:fs";
import { generateSchemaTypes, SCHEMA_FILE } from "./generate-types";
import { AI_TOOLS_FILE, generateAiToolDefinitions } from "./generate-ai-tools";
import { generatePythonSdk } from "../../sdk-python/codegen/generate";
import { VECTORS_FILE, vectorsFile } from "../../sdk-python/codegen/vectors";

fs.writeFileSync(SCHEMA_FILE, await generateSchemaTypes());
console.log(`wrote ${SCHEMA_FILE}`);
fs.writeFileSync(AI_TOOLS_FILE, generateAiToolDefinitions());
console.log(`wrote ${AI_TOOLS_FILE}`);
for (const [file, text] of Object.entries(generatePythonSdk())) {
  fs.writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
fs.writeFileSync(VECTORS_FILE, await vectorsFile());
console.log(`wrote ${VECTORS_FILE}`);
