// npm run docs:generate: writes what lib/composition/docs/generate-docs.ts generates (the configuration page,
// the job kinds, the docs index, each page's contents, .env.example).
import fs from "node:fs";
import { generatedFiles } from "./generate-docs";

for (const { file, content } of generatedFiles()) {
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === content) continue;
  fs.writeFileSync(file, content);
  console.log(`wrote ${file}`);
}
