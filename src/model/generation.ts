import type { GenerateResult, Generation, ModelEvent, Timings } from "./types.js";

/**
 * Turns a producer that emits events and resolves to a result into a
 * `Generation`: events are buffered, so a caller may iterate late, iterate
 * never (and only await `result`), or both.
 */
export function createGeneration(
  produce: (emit: (event: ModelEvent) => void) => Promise<GenerateResult>,
): Generation {
  const buffered: ModelEvent[] = [];
  let finished = false;
  let failure: unknown = undefined;
  let wake: (() => void) | undefined;

  const emit = (event: ModelEvent): void => {
    buffered.push(event);
    wake?.();
  };

  const result = produce(emit).then(
    (value) => {
      finished = true;
      wake?.();
      return value;
    },
    (error: unknown) => {
      finished = true;
      failure = error;
      wake?.();
      throw error;
    },
  );
  // The caller may only iterate; the rejection is re-thrown there.
  result.catch(() => undefined);

  return {
    result,
    async *[Symbol.asyncIterator](): AsyncIterator<ModelEvent> {
      let index = 0;
      while (true) {
        if (index < buffered.length) {
          yield buffered[index++]!;
          continue;
        }
        if (finished) {
          if (failure !== undefined) throw failure;
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
}

/**
 * A generation's timings from its clock readings (`performance.now()`):
 * start, first output token (none: the end) and end, with the output tokens
 * and the prompt tokens evaluated (cached ones excluded).
 */
export function generationTimings(startedAt: number, firstOutputAt: number | undefined, finishedAt: number, outputTokens: number, evaluatedPromptTokens: number): Timings {
  const firstAt = firstOutputAt ?? finishedAt;
  const generationSeconds = (finishedAt - firstAt) / 1000;
  const promptSeconds = (firstAt - startedAt) / 1000;
  return {
    totalMs: finishedAt - startedAt,
    timeToFirstTokenMs: firstAt - startedAt,
    outputTokensPerSecond: outputTokens > 1 && generationSeconds > 0 ? (outputTokens - 1) / generationSeconds : 0,
    promptTokensPerSecond: promptSeconds > 0 ? evaluatedPromptTokens / promptSeconds : 0,
  };
}
