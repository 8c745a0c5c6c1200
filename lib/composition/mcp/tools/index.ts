import type { McpTool } from "../define-tool";
import { APPROVAL_TOOLS } from "./approval-tools";
import { AUDIT_TOOLS } from "./audit-tools";
import { CALENDAR_TOOLS } from "./calendar-tools";
import { whoAmITool } from "./identity-tools";
import { MAIL_TOOLS } from "./mail-tools";
import { DRAFT_TOOLS } from "./draft-tools";
import { HANDOFF_TOOLS } from "./handoff-tools";
import { NOTE_TOOLS } from "./note-tools";
import { COORDINATION_TOOLS } from "./coordination-tools";
import { EVENT_TOOLS } from "./event-tools";

/** Every tool the MCP server offers, in the order clients list them. */
export const MCP_TOOLS = [whoAmITool, ...MAIL_TOOLS, ...DRAFT_TOOLS, ...CALENDAR_TOOLS, ...APPROVAL_TOOLS, ...AUDIT_TOOLS, ...HANDOFF_TOOLS, ...NOTE_TOOLS, ...COORDINATION_TOOLS, ...EVENT_TOOLS] as unknown as McpTool[];
