import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Connect an MCP client" };
export const dynamic = "force-static";

// GET /docs/mcp — connecting Claude, ChatGPT, Cursor and VS Code by URL with OAuth (docs/connect-mcp.md)
export default function ConnectMcpGuidePage() {
  return <GuidePage file="connect-mcp.md" />;
}
