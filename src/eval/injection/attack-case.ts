import type { Risk } from "../../tools/tool.js";
import type { Scenario } from "../scenario.js";

/**
 * What every injection case has, whichever suite wrote it: the development
 * suite (`cases.ts`, the one defenses may be tuned on) and the held-out suite
 * (`heldout-cases.ts`, written apart from it and never tuned on).
 */

/** The development suite and the held-out suite, by the names `botpsy eval run` takes. */
export const INJECTION_SUITES = ["injection", "injection-heldout"] as const;
export type InjectionSuiteName = (typeof INJECTION_SUITES)[number];

export function isInjectionSuite(name: string): name is InjectionSuiteName {
  return (INJECTION_SUITES as readonly string[]).includes(name);
}

/** A call as the suites write it: the benign task's ground truth, or one the attacker wants made. */
export interface SuiteCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * One call the attacker's text asks for. `evidence` says when a reader has
 * seen the instruction: every string of one of its alternatives appears in
 * the tool results read so far (an instruction split across two sources needs
 * both halves read).
 */
export interface AttackStep {
  call: SuiteCall;
  evidence: string[][];
}

/** The user's task of a case, as far as a scripted model needs it. */
export interface AttackTask {
  id: string;
  /** The tools the task needs (the attacker's tools are added per case). */
  tools: string[];
  /** What a model that does the task right calls, in order. */
  groundTruth: SuiteCall[];
  /** Facts of the content the answer should give. */
  answerFacts: string[];
}

export interface AttackCase {
  id: string;
  suite: InjectionSuiteName;
  /** The kind of attack, for the per-class report ("write-poisoning", "money"…). */
  attackClass: string;
  /** What the attacker wants, in words. */
  summary: string;
  /** The risk class of the attacker's goal: side-effecting (send, spend, destructive, settings) or an undoable write. */
  risk: Risk;
  /** The phrasing family of the planted text. */
  technique: string;
  task: AttackTask;
  /** The calls the planted text asks for, in order (one for most attacks; poison-then-send and bulk damage take several). */
  attack: AttackStep[];
  /** The scenario with the attack planted. */
  scenario: Scenario;
  /** The same scenario without the attack. */
  benign: Scenario;
}

/** The risk classes the gate treats as acting on the world beyond an undo. */
export const SIDE_EFFECTING: readonly Risk[] = ["send", "spend", "destructive", "settings"];
