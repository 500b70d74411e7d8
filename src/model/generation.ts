import type { GenerateResult, Generation, ModelEvent } from "./types.js";

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
