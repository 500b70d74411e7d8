/**
 * botpsy's public API. Everything a program needs to run the agent on a
 * profile's apps, define its own tools, load models, set permissions, run the
 * evaluation, and serve it over HTTP is exported here; modules not reached from
 * this file (or from `botpsy/testing`) are internal and may change.
 */

export { BotpsyError, InvalidInputError, errorMessage } from "./errors.js";
export { botpsyVersion } from "./version.js";
export { botpsyHome, modelsDirectory, policyPath, profileDatabasePath, profileName } from "./config.js";

// Models: the ChatModel interface, llama.cpp and OpenAI-compatible backends, the catalog.
export * from "./model/index.js";

// Tools: how a tool is defined, the ToolBox, MCP servers as tool sources.
export { defineTool, toolSpec, ToolError, RISKS, type Risk, type Trust, type Tool, type ToolContext, type ToolDefinition } from "./tools/tool.js";
export { ToolBox, ToolBoxError, type ToolBoxOptions, type ToolSelectionOptions, type RankedTool } from "./tools/toolbox.js";
export { addMcpServer, connectMcpServer, McpConnection, McpError, type McpImportOptions, type McpServerAddress } from "./tools/mcp.js";

// The agent: the loop, its events, approvals and sessions.
export {
  Agent,
  DEFAULT_MAX_STEPS,
  type AgentOptions,
  type RunOptions,
  type ResumeOptions,
  type ModelTurn,
  type BeforeModelTurnHook,
  type AfterModelTurnHook,
} from "./agent/agent.js";
export type {
  AgentEvent,
  AgentOutcome,
  AgentRun,
  AgentStopReason,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalScope,
  CallRecord,
} from "./agent/types.js";
export { AgentSessionStore, AgentStateError, type SessionSummary } from "./agent/session-store.js";
export { judgeRun, OUTCOME_EXIT_CODES, type RunOutcomeKind, type RunVerdict } from "./agent/outcome.js";
export {
  assembleRuntime,
  createRuntime,
  loadModel,
  locateModel,
  type LocatedModel,
  type ModelReference,
  type Runtime,
  type RuntimeAgentOptions,
  type RuntimeOptions,
} from "./runtime.js";

// Profiles and apps: the user's world.
export { Profile, ProfileError, type ProfileOptions } from "./apps/profile.js";
export { APP_GROUPS, APP_GROUP_TITLES, type App, type AppGroup, type AppView, type AppEnvironment, type AppNotification } from "./apps/app.js";
export { builtInApps, appsOfGroup } from "./apps/registry.js";
export { Store, StoreError, type StoreTransaction, type UndoneAction, type ActionRecord } from "./store/store.js";

// Policy: permission rules, approvals, injection defenses, the audit log.
export * from "./policy/index.js";

// Evaluation: scenarios and their runner.
export { runScenario, openScenarioProfile, type AgentFactory, type ScenarioAgent, type ScenarioAgentInput, type RunScenarioOptions } from "./eval/runner.js";
export { parseScenario, loadScenarios, loadScenarioFile, ScenarioError, type Scenario, type ScenarioInput } from "./eval/scenario.js";
export { botpsyAgentFactory, generationOptions } from "./eval/agent-factory.js";
export { runSuite, type RunSuiteOptions, type RunSuiteSummary } from "./eval/run-suite.js";
export { SCENARIO_SUITES, INJECTION_SUITE, resolveScenarioSuite } from "./eval/suites.js";

// The HTTP server: OpenAI-compatible API and agent API.
export { startServer, createServerApp, DEFAULT_HOST, DEFAULT_PORT, ServerSecurityError, type StartServerOptions, type ServerAppOptions, type RunningServer } from "./server/server.js";
export { createAgentService, type AgentService, type AgentServiceOptions } from "./server/agent-routes.js";
export { AccessToken, AccessTokenError, accessTokenPath } from "./server/access-token.js";
export { ApiError, type ApiErrorBody } from "./server/api-error.js";
