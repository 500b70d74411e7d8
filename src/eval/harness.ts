import { InvalidInputError } from "../errors.js";
import type { RuntimeAgentOptions } from "../runtime.js";

/**
 * The agent's heuristics an evaluation can switch, to measure what each one
 * is worth (`botpsy eval run … --harness router=auto,pruning=off`). Absent
 * keys keep the shipped defaults; a run with no switches records none, so its
 * settings match a plain run's.
 */
export interface HarnessSettings {
  /** The first turn's tool choice: "route" (default), or a fixed "auto" / "required" / "none". */
  router?: "route" | "auto" | "required" | "none";
  /** Argument pruning: on the first turn, on the first and the recovery turns (default), on every turn, or off. */
  pruning?: "first" | "recovery" | "all" | "off";
  /** Where pruned parameters are taken out: the call only (default), or the prompt and the call. */
  pruningScope?: "prompt" | "call";
  /** Narrow a forced first turn to the router's best N tools, or "off" (default). */
  forcedTools?: number | "off";
  /** Answer from the calls' results when the model's words are unreadable: "on" (default) or "off". */
  composeAnswers?: "on" | "off";
  /** Hold the turn after a fixable failed call to a call (`recoveryRouting`): "on" (default) or "off". */
  recovery?: "on" | "off";
  /** After a fix worked, hold the next turn to the failed call (`resumeAfterRecovery`): "off" (default) or "on". */
  resume?: "on" | "off";
  /** After a turn whose calls all succeeded, hold the next turn to the tool an unserved part of the request names (`continuationRouting`): "on" (default) or "off". */
  continuation?: "on" | "off";
  /** End the run when a turn only repeats calls that already succeeded, with only successful reads since (`endRepeatedSuccess`): "end" (default) or "run". */
  repeats?: "end" | "run";
  /** End the run when a failure keeps coming back (`endRepeatedFailure`): "end" (default) or "retry". */
  failures?: "end" | "retry";
  /** Refuse calls whose values nothing in the conversation carries (`argumentGrounding`): "on" (default) or "off". */
  grounding?: "on" | "off";
  /** With grounding, hold number parameters to the numbers the conversation carries (`numberHolding`): "free" (default) or "held". */
  numbers?: "free" | "held";
}

const KEYS = {
  router: ["route", "auto", "required", "none"],
  pruning: ["first", "recovery", "all", "off"],
  "pruning-scope": ["prompt", "call"],
  "forced-tools": ["off", "<n>"],
  "compose-answers": ["on", "off"],
  recovery: ["on", "off"],
  resume: ["on", "off"],
  continuation: ["on", "off"],
  repeats: ["end", "run"],
  failures: ["end", "retry"],
  grounding: ["on", "off"],
  numbers: ["free", "held"],
} as const;

/** The switches whose value is one of the names in `KEYS`, and the setting each one sets. */
const NAMED_VALUE_FIELDS = {
  router: "router",
  pruning: "pruning",
  "pruning-scope": "pruningScope",
  "compose-answers": "composeAnswers",
  recovery: "recovery",
  resume: "resume",
  continuation: "continuation",
  repeats: "repeats",
  failures: "failures",
  grounding: "grounding",
  numbers: "numbers",
} as const satisfies Partial<Record<keyof typeof KEYS, keyof HarnessSettings>>;

function usage(): string {
  return Object.entries(KEYS)
    .map(([key, values]) => `${key}=${values.join("|")}`)
    .join(", ");
}

/** Parse `key=value,key=value`; undefined when nothing is switched. */
export function parseHarness(text: string | undefined): HarnessSettings | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const settings: HarnessSettings = {};
  for (const item of text.split(",")) {
    const [key, value, extra] = item.split("=").map((part) => part.trim());
    const bad = (): never => {
      throw new InvalidInputError(`--harness "${item}" is not a known switch. Give key=value pairs separated by commas: ${usage()}.`, { code: "invalid_option" });
    };
    if (key === undefined || value === undefined || extra !== undefined) bad();
    const named = key !== undefined && Object.hasOwn(NAMED_VALUE_FIELDS, key) ? (key as keyof typeof NAMED_VALUE_FIELDS) : undefined;
    if (named !== undefined && (KEYS[named] as readonly string[]).includes(value!)) (settings as Record<string, string>)[NAMED_VALUE_FIELDS[named]] = value!;
    else if (key === "forced-tools" && value === "off") settings.forcedTools = "off";
    else if (key === "forced-tools" && /^[1-9]\d*$/.test(value!)) settings.forcedTools = Number(value);
    else bad();
  }
  return settings;
}

/** The agent options a run's switches stand for. */
export function harnessAgentOptions(harness: HarnessSettings | undefined): RuntimeAgentOptions {
  if (!harness) return {};
  return {
    ...(harness.router !== undefined ? { firstStepToolChoice: harness.router } : {}),
    ...pruningOption(harness),
    ...(harness.forcedTools !== undefined ? { forcedTurnTools: harness.forcedTools === "off" ? false : harness.forcedTools } : {}),
    ...(harness.composeAnswers !== undefined ? { composeUnreadableAnswers: harness.composeAnswers === "on" } : {}),
    ...(harness.recovery !== undefined ? { recoveryRouting: harness.recovery === "on" } : {}),
    ...(harness.resume !== undefined ? { resumeAfterRecovery: harness.resume === "on" } : {}),
    ...(harness.continuation !== undefined ? { continuationRouting: harness.continuation === "on" } : {}),
    ...(harness.repeats !== undefined ? { endRepeatedSuccess: harness.repeats === "end" } : {}),
    ...(harness.failures !== undefined ? { endRepeatedFailure: harness.failures === "end" } : {}),
    ...(harness.grounding !== undefined ? { argumentGrounding: harness.grounding === "on" } : {}),
    ...(harness.numbers !== undefined ? { numberHolding: harness.numbers === "held" } : {}),
  };
}

function pruningOption(harness: HarnessSettings): Pick<RuntimeAgentOptions, "argumentPruning"> {
  if (harness.pruning === "off") return { argumentPruning: false };
  if (harness.pruning === undefined && harness.pruningScope === undefined) return {};
  return {
    argumentPruning: {
      ...(harness.pruning !== undefined ? { turns: harness.pruning } : {}),
      ...(harness.pruningScope !== undefined ? { scope: harness.pruningScope } : {}),
    },
  };
}
