import type { GenerateOptions, Thinking } from "../model/types.js";
import { assembleRuntime, type Runtime } from "../runtime.js";
import { harnessAgentOptions } from "./harness.js";
import type { EvalSettings } from "./results.js";
import type { AgentFactory, ScenarioAgent, ScenarioAgentInput } from "./runner.js";

/** The recorded thinking option as the model interface takes it. */
export function thinkingOption(thinking: EvalSettings["options"]["thinking"]): Thinking {
  return typeof thinking === "number" ? { budget: thinking } : thinking;
}

/** The generation options of a run's recorded settings: greedy, its seed, token cap, thinking and parallel calls. */
export function generationOptions(settings: EvalSettings): GenerateOptions {
  return {
    temperature: settings.options.temperature,
    seed: settings.options.seed,
    maxTokens: settings.options.maxTokens,
    thinking: thinkingOption(settings.options.thinking),
    // Absent: the model format's own default.
    ...(settings.options.parallelCalls === undefined ? {} : { parallelToolCalls: settings.options.parallelCalls }),
  };
}

/**
 * botpsy's own agent as the evaluation runs it: the scenario's tools in a
 * ToolBox (retrieval on when there are many, as in real use), greedy
 * decoding with the recorded seed, and a user who approves every call —
 * the suite measures whether the model acts right, not the permission rules
 * (the injection suite measures those). The runtime gives a suite that
 * builds its own turns the agent's first-turn preparation too
 * (`runtime.agent.prepareFirstTurn`).
 */
export function scenarioRuntime({ profile, tools, model, settings }: ScenarioAgentInput): Runtime {
  return assembleRuntime({
    profile,
    model,
    tools,
    safety: { approveAll: true },
    agent: { ...harnessAgentOptions(settings.options.harness), maxSteps: settings.options.maxSteps, generation: generationOptions(settings) },
  });
}

/** The evaluation's agent factory: `scenarioRuntime`'s agent. */
export const botpsyAgentFactory: AgentFactory = (input) => {
  const runtime = scenarioRuntime(input);
  const scenarioAgent: ScenarioAgent = {
    run: (request, options) => runtime.run(request, options),
  };
  return scenarioAgent;
};
