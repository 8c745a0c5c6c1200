// npm run sdk:generate — writes sdk/src/schema.ts from the app's OpenAPI registry.
import fs from "node:fs";
import { generateSchemaTypes, SCHEMA_FILE } from "./generate-types";

fs.writeFileSync(SCHEMA_FILE, await generateSchemaTypes());
console.log(`wrote ${SCHEMA_FILE}`);
