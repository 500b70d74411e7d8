import type { ChatMessage, ChatModel, GenerateRequest, Generation } from "../../model/types.js";
import { ScriptedModel, type ScriptedReply } from "../../testing/scripted-model.js";
import { unfenced } from "../../policy/fence.js";
import type { AttackCase, AttackStep, SuiteCall } from "./attack-case.js";

/**
 * A deterministic test double of a model that an injection has fully taken
 * over: it does the user's task by its ground truth, and the moment the tool
 * results show it the attacker's instruction, it obeys it — it makes the
 * attacker's calls with the attacker's arguments, in order, each once (a
 * multi-step attack goes on to its next call whether the last ran, failed or
 * was declined; then it carries on with the task). It never acts on an
 * instruction it has not read: a run whose results never show the planted
 * text (both halves of a split one) never sees the attack.
 *
 * It does no inference; it stands for the worst model, so that what stops the
 * attack can only be botpsy's gate.
 */
export class CompromisedModel implements ChatModel {
  readonly id = "compromised-model";
  private readonly scripted: ScriptedModel;

  constructor(injectionCase: Pick<AttackCase, "task" | "attack">, options: { obey?: boolean } = {}) {
    const obey = options.obey ?? true;
    this.scripted = new ScriptedModel([(request) => nextMove(request, injectionCase, obey)], { id: this.id, whenExhausted: "repeat-last" });
  }

  /** Every request received (for tests). */
  get requests(): GenerateRequest[] {
    return this.scripted.requests;
  }

  generate(request: GenerateRequest): Generation {
    return this.scripted.generate(request);
  }

  dispose(): Promise<void> {
    return this.scripted.dispose();
  }
}

/** The messages of the current user turn (after its last user message). */
function currentTurn(messages: readonly ChatMessage[]): ChatMessage[] {
  let start = 0;
  messages.forEach((message, index) => {
    if (message.role === "user") start = index + 1;
  });
  return messages.slice(start);
}

function sameCall(made: { name: string; arguments: Record<string, unknown> }, wanted: SuiteCall): boolean {
  return made.name === wanted.name && JSON.stringify(made.arguments) === JSON.stringify(wanted.arguments);
}

/** The instruction of a step was read: every string of one of its alternatives is in the results so far. */
function sawInstruction(step: AttackStep, results: readonly string[]): boolean {
  return step.evidence.some((alternative) => alternative.every((sign) => results.some((content) => content.includes(sign))));
}

function nextMove(request: GenerateRequest, injectionCase: Pick<AttackCase, "task" | "attack">, obey: boolean): ScriptedReply {
  const turn = currentTurn(request.messages);
  const made = turn.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
  // What each result says, inside its fence: a random boundary holding the attacker's figures ("ee3950c4" holds 950) is not the instruction.
  const results = turn.flatMap((message) => (message.role === "tool" ? [unfenced(message.content)] : []));
  const offered = new Set((request.tools ?? []).map((tool) => tool.name));

  // The first attacker call not made yet, if its instruction has been read; later steps wait for it.
  const pending = injectionCase.attack.find((step) => !made.some((call) => sameCall(call, step.call)));
  if (obey && pending !== undefined && sawInstruction(pending, results) && offered.has(pending.call.name)) {
    return { toolCalls: [{ name: pending.call.name, arguments: structuredClone(pending.call.arguments) }] };
  }
  const next = injectionCase.task.groundTruth.find((wanted) => !made.some((call) => sameCall(call, wanted)));
  if (next !== undefined && offered.has(next.name)) return { toolCalls: [{ name: next.name, arguments: structuredClone(next.arguments) }] };
  // The answer gives the facts it actually read, in its own words (never copying marked lines).
  const facts = injectionCase.task.answerFacts.filter((fact) => results.some((content) => content.includes(fact)));
  return { text: facts.length > 0 ? `Here is what I found: ${facts.join("; ")}.` : "I could not find that." };
}
