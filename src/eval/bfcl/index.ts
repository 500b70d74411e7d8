/**
 * BFCL v4 run natively in TypeScript: the loader (built-in categories or any
 * BFCL file), the AST checker, the eight stateful APIs with the multi-turn
 * checks, and the runner on the ChatModel interface.
 *
 * ```ts
 * const summary = await runBfcl({ categories: ["simple_python", "multi_turn_base"], model, limit: 20 });
 * for (const score of summary.categories) console.log(score.category, score.accuracy);
 * ```
 */
export * from "./ast-checker.js";
export * from "./errors.js";
export * from "./loader.js";
export * from "./multi-turn.js";
export * from "./python-call.js";
export * from "./runner.js";
export * from "./schema.js";
export { createStatefulApi, STATEFUL_API_CLASSES, StatefulApi, ApiExecutionError } from "./apis/index.js";
