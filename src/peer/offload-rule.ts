import { InvalidInputError } from "../errors.js";
import type { LenderModelInfo } from "./protocol.js";

/**
 * When `--offload auto` sends a model turn to the lender:
 *   1. the prompt plus the reply budget would not fit the local context, or
 *   2. the lender's model is at least `largerModelRatio` times the local one
 *      (by weight size) and the job is long: the prompt has at least
 *      `longJobTokens` tokens.
 * Otherwise the turn runs here. Both numbers are settings
 * (`offload.largerModelRatio`, `offload.longJobTokens` in config.json).
 */
export interface OffloadRule {
  /** Default 4. */
  largerModelRatio: number;
  /** Default 1500. */
  longJobTokens: number;
}

export const DEFAULT_OFFLOAD_RULE: OffloadRule = { largerModelRatio: 4, longJobTokens: 1500 };

export interface TurnSize {
  promptTokens: number;
  /** Tokens the reply may take. */
  maxTokens: number;
}

export interface LocalModelInfo {
  contextSize: number;
  sizeBytes: number;
}

export type OffloadDecision = { where: "peer" | "local"; reason: string };

/** Whether a turn must leave this device: rule 1 alone, no lender needed to decide it. */
export function exceedsLocalContext(turn: TurnSize, local: LocalModelInfo): boolean {
  return turn.promptTokens + turn.maxTokens > local.contextSize;
}

/** Whether the lender could matter at all: rule 1 holds, or the job is long enough for rule 2. */
export function mayOffload(turn: TurnSize, local: LocalModelInfo, rule: OffloadRule): boolean {
  return exceedsLocalContext(turn, local) || turn.promptTokens >= rule.longJobTokens;
}

export function decideOffload(turn: TurnSize, local: LocalModelInfo, lender: LenderModelInfo, rule: OffloadRule = DEFAULT_OFFLOAD_RULE): OffloadDecision {
  if (exceedsLocalContext(turn, local)) {
    return { where: "peer", reason: `the prompt (${turn.promptTokens} tokens) and reply (${turn.maxTokens}) do not fit the local context of ${local.contextSize}` };
  }
  const ratio = local.sizeBytes > 0 ? lender.sizeBytes / local.sizeBytes : 0;
  if (ratio >= rule.largerModelRatio && turn.promptTokens >= rule.longJobTokens) {
    return { where: "peer", reason: `the lender's model is ${ratio.toFixed(1)}× the local one and the job is long (${turn.promptTokens} prompt tokens)` };
  }
  return { where: "local", reason: "it fits here, and the job is short or the lender's model is not much larger" };
}

export function checkOffloadRule(value: Partial<OffloadRule> | undefined): OffloadRule {
  const rule = { ...DEFAULT_OFFLOAD_RULE, ...(value ?? {}) };
  if (!(rule.largerModelRatio > 0) || !Number.isFinite(rule.largerModelRatio)) throw new InvalidInputError("offload.largerModelRatio in config.json must be a positive number, e.g. 4.", { code: "invalid_config" });
  if (!Number.isInteger(rule.longJobTokens) || rule.longJobTokens < 0) throw new InvalidInputError("offload.longJobTokens in config.json must be a whole number of tokens, 0 or more, e.g. 1500.", { code: "invalid_config" });
  return rule;
}
