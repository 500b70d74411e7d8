import { BotpsyError } from "../../errors.js";
import { createGeneration } from "../../model/generation.js";
import { emptyUsage, type ChatModel, type GenerateRequest, type Generation, type ToolCall } from "../../model/types.js";
import type { BfclCase, BfclMultiTurnCase, BfclSingleTurnCase } from "./loader.js";
import { parsePythonCall } from "./python-call.js";
import { ToolNameMap } from "./schema.js";

/** A request the GroundTruthModel cannot place: no case it knows asked it. */
export class GroundTruthCaseUnknownError extends BotpsyError {
  constructor(question: string) {
    super(
      "ground_truth_case_unknown",
      `GroundTruthModel knows no BFCL case whose first question is ${JSON.stringify(question.slice(0, 80))}: build it with the cases you run.`,
    );
  }
}

/**
 * A deterministic test double that answers BFCL requests with the case's own
 * ground truth: for a single-turn case the expected calls (the first accepted
 * value of each argument), for a multi-turn case each turn's calls and then a
 * short text. It checks the harness (runner, checkers, results, reports),
 * never a model's skill: a run with it must score 100%.
 */
export class GroundTruthModel implements ChatModel {
  readonly id: string;
  /** Cases by their first user message; several cases may share one. */
  private readonly byQuestion = new Map<string, BfclCase[]>();
  /** Turns answered so far, per conversation (a multi-turn case is one conversation). */
  private readonly turnsAnswered = new Map<string, number>();

  constructor(cases: Iterable<BfclCase>, options: { id?: string } = {}) {
    this.id = options.id ?? "ground-truth";
    for (const caseData of cases) {
      const question = firstUserMessage(caseData.question.flat());
      const known = this.byQuestion.get(question) ?? [];
      known.push(caseData);
      this.byQuestion.set(question, known);
    }
  }

  generate(request: GenerateRequest): Generation {
    return createGeneration(async () => {
      request.signal?.throwIfAborted();
      const toolCalls = this.answer(request);
      return {
        text: toolCalls.length === 0 ? "Done." : "",
        thoughts: "",
        toolCalls,
        usage: { ...emptyUsage(), promptTokens: request.messages.length, outputTokens: Math.max(1, toolCalls.length) },
        timings: { totalMs: 0, timeToFirstTokenMs: 0, outputTokensPerSecond: 0, promptTokensPerSecond: 0 },
        stopReason: toolCalls.length === 0 ? "stop" : "tool-calls",
      };
    });
  }

  endConversation(conversationId: string): void {
    this.turnsAnswered.delete(conversationId);
  }

  async dispose(): Promise<void> {
    this.turnsAnswered.clear();
  }

  private answer(request: GenerateRequest): ToolCall[] {
    const question = firstUserMessage(request.messages.flatMap((message) => (message.role === "user" ? [{ role: "user", content: message.content }] : [])));
    const offered = new Set((request.tools ?? []).map((tool) => tool.name));
    const candidates = this.byQuestion.get(question) ?? [];
    // Cases that share a question (a miss_func case and its base case) are told apart by the
    // conversation id (the agent's session id, which the BFCL adapter builds from the case id), then by the tools offered.
    const conversation = request.conversationId ?? "";
    const caseData =
      candidates.find((candidate) => conversation.startsWith(`bfcl-${candidate.id}-`)) ??
      candidates.find((candidate) => {
        const names = new ToolNameMap(candidate.functions.map((doc) => doc.name));
        return candidate.functions.length === offered.size && candidate.functions.every((doc) => offered.has(names.toolName(doc.name)));
      }) ??
      candidates.find((candidate) => candidate.kind === "multi-turn") ??
      candidates[0];
    if (caseData === undefined) throw new GroundTruthCaseUnknownError(question);
    // A new turn starts whenever the last message is the user's; tool results continue the turn, and then the double stops calling.
    if (request.messages.at(-1)?.role !== "user") return [];
    if (caseData.kind === "single-turn") return singleTurnCalls(caseData);
    const key = request.conversationId ?? caseData.id;
    const turn = this.turnsAnswered.get(key) ?? 0;
    this.turnsAnswered.set(key, turn + 1);
    return multiTurnCalls(caseData, turn);
  }
}

/** Trimmed: the agent sends a request without its surrounding blanks. */
function firstUserMessage(messages: readonly { role: string; content: string }[]): string {
  return (messages.find((message) => message.role === "user")?.content ?? "").trim();
}

/** The calls a single-turn case expects, each parameter at its first accepted value (a parameter that may only be left out is left out). */
export function singleTurnCalls(caseData: BfclSingleTurnCase): ToolCall[] {
  const names = new ToolNameMap(caseData.functions.map((doc) => doc.name));
  return (caseData.groundTruth ?? []).map((expected, index) => {
    const entry = Object.entries(expected)[0];
    if (entry === undefined) throw new BotpsyError("bfcl_data", `Case ${caseData.id} has an empty expected call in its ground truth.`);
    const [name, parameters] = entry;
    const declared = caseData.functions.find((doc) => doc.name === name)?.parameters.properties ?? {};
    // `""` among the accepted values means "may be left out"; the double gives a concrete accepted value
    // whenever there is one (some required parameters list `""` first) and leaves out the rest, as well as
    // parameters the function does not declare (a few ground truths list one with only `""` or a default).
    const args: Record<string, unknown> = {};
    for (const [key, accepted] of Object.entries(parameters)) {
      const concrete = accepted.find((value) => value !== "");
      if (concrete !== undefined && key in declared) args[key] = firstAccepted(concrete);
    }
    return { id: `call_${index}`, name: names.toolName(name), arguments: args };
  });
}

/**
 * A value the checker accepts: inside a dictionary parameter, BFCL lists the
 * accepted values of each key as it does for parameters, so the first of each
 * is taken (and a key whose first accepted value is `""` is left out).
 */
function firstAccepted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(firstAccepted);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).flatMap(([key, accepted]): [string, unknown][] => {
    if (!Array.isArray(accepted)) return [[key, firstAccepted(accepted)]];
    if (accepted.length === 0 || accepted[0] === "") return [];
    return [[key, firstAccepted(accepted[0])]];
  });
  return Object.fromEntries(entries);
}

function multiTurnCalls(caseData: BfclMultiTurnCase, turn: number): ToolCall[] {
  const names = new ToolNameMap(caseData.functions.map((doc) => doc.name));
  return (caseData.groundTruth[turn] ?? []).map((source, index) => {
    const call = parsePythonCall(source);
    const toolName = names.toolName(call.name);
    // Positional arguments take the parameter names in the order the document lists them (the
    // document, not the offered tool: the agent may offer a turn's tools with optional parameters pruned).
    const doc = caseData.functions.find((candidate) => candidate.name === call.name);
    const order = Object.keys(doc?.parameters.properties ?? {});
    const args: Record<string, unknown> = { ...call.keywords };
    call.positional.forEach((value, position) => {
      args[order[position] ?? `arg${position}`] = value;
    });
    return { id: `call_${turn}_${index}`, name: toolName, arguments: args };
  });
}
