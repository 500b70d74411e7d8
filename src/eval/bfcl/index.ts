/**
 * BFCL v4 run natively in TypeScript: the loader (built-in categories or any
 * BFCL file), the AST checker, the eight stateful APIs with the multi-turn
 * checks, and the adapter that runs a case through botpsy's agent (its
 * functions and APIs as tools). Whole runs go through `runBfclSuite`
 * (eval/bfcl-suite.ts), the shared resumable case pool.
 *
 * ```ts
 * const result = await runBfclCase(loadBfclCategory("simple_python")[0]!, { model, agentFactory: botpsyAgentFactory, settings });
 * ```
 */
export * from "./agent-run.js";
export * from "./ast-checker.js";
export * from "./errors.js";
export * from "./loader.js";
export * from "./multi-turn.js";
export * from "./python-call.js";
export * from "./schema.js";
export * from "./tool-source.js";
export { createStatefulApi, STATEFUL_API_CLASSES, StatefulApi, ApiExecutionError } from "./apis/index.js";
