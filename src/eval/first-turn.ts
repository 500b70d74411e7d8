import type { CallMargin, ChatModel, GenerateRequest, Generation } from "../model/types.js";

/**
 * How a case's first model turn began: the tool choice the agent gave it and,
 * where the model measured it, its preference for opening a call over
 * answering in words (`GenerateResult.callMargin`). From it a report tells
 * the router's decisions from the model's, and a call bias or a forced-call floor can
 * be weighed on a split without running it again.
 */
export interface FirstTurnRecord {
  /** "required" and "named" are forced calls; "auto" leaves the model free; "none" offers no call. */
  choice: "auto" | "required" | "named" | "none";
  callMargin?: CallMargin;
  /** The forced call was released: the model answered in words (`forcedCallFloor`). */
  released?: boolean;
}

/** The model as the case's agent sees it, and what its first turn was, once it ended. */
export interface ObservedModel {
  model: ChatModel;
  firstTurn(): Promise<FirstTurnRecord | undefined>;
}

/**
 * Wraps a model so that the first `generate` of a case is recorded, its call
 * margin asked for (a call bias or a forced-call floor can then be weighed on
 * the results: `eval calibrate`); everything else passes through, the later
 * turns unmeasured.
 */
export function observeFirstTurn(model: ChatModel): ObservedModel {
  let first: Promise<FirstTurnRecord | undefined> | undefined;
  const generate = (request: GenerateRequest): Generation => {
    if (first !== undefined) return model.generate(request);
    const generation = model.generate({ ...request, reportCallMargin: true });
    const choice = choiceOf(request);
    first = generation.result.then(
      (result): FirstTurnRecord => ({
        choice,
        ...(result.callMargin !== undefined ? { callMargin: { opening: rounded(result.callMargin.opening), following: rounded(result.callMargin.following) } } : {}),
        ...(result.releasedForcedCall === true ? { released: true } : {}),
      }),
      () => ({ choice }),
    );
    return generation;
  };
  const observed = new Proxy(model, {
    get(target, property) {
      if (property === "generate") return generate;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { model: observed, firstTurn: () => first ?? Promise.resolve(undefined) };
}

function choiceOf(request: GenerateRequest): FirstTurnRecord["choice"] {
  if ((request.tools ?? []).length === 0) return "none";
  const choice = request.toolChoice ?? "auto";
  return typeof choice === "object" ? "named" : choice;
}

function rounded(value: number): number {
  return Math.round(value * 1000) / 1000;
}
