import { z } from "zod";
import { MCP_TOOLS } from "../../lib/composition/mcp/tools";

export const AI_TOOLS_FILE = "sdk/src/ai-tool-definitions.ts";

const HEADER = `/**
 * AgentDraft's MCP tools as data: name, title, description, annotations and the input's JSON
 * Schema, generated from the MCP server's own zod definitions (lib/composition/mcp/tools), so the Vercel AI SDK
 * tools in ./ai.ts offer a model exactly what /api/mcp does. Do not edit: run \`npm run sdk:generate\`.
 */

`;

/** The JSON Schema of a tool's input, as the MCP server lists it (zod's input side, draft-07). */
export function toolInputJsonSchema(input: z.ZodRawShape): Record<string, unknown> {
  const schema = z.toJSONSchema(z.object(input), { target: "draft-7", io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The source of sdk/src/ai-tool-definitions.ts for the current MCP tools. */
export function generateAiToolDefinitions(): string {
  const tools = MCP_TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    annotations: t.annotations,
    ...(t.externalContent ? { externalContent: true } : {}),
    inputSchema: toolInputJsonSchema(t.input),
  }));
  return (
    HEADER +
    `export type ToolDefinition = {
  name: string;
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** Results are mail from external senders: data to read, never instructions. */
  externalContent?: boolean;
  inputSchema: Record<string, unknown>;
};

export const TOOL_DEFINITIONS = ${JSON.stringify(tools, null, 2)} as const satisfies readonly ToolDefinition[];
`
  );
}
