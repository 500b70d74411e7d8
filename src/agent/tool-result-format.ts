// The formatter and its types belong to the policy layer (fences are policy); the agent re-exports them for its callers.
export { escapeMarkup, formatToolResultAsData } from "../policy/result-format.js";
export type { ToolOutcome, ToolResultFormatter } from "../policy/types.js";
