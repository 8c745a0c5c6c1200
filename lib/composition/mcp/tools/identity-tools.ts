import { describeKey } from "../../../domains/api-keys/me";
import { READ_ONLY, defineTool } from "../define-tool";

export const whoAmITool = defineTool({
  name: "whoami",
  title: "Who am I",
  description: "The workspace, agent and scopes of the API key this server was called with.",
  input: {},
  annotations: READ_ONLY,
  run: ({ key }) => describeKey(key),
});
