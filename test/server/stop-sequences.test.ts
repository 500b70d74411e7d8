import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StopSequenceScanner } from "../../src/server/stop-sequences.js";

/**
 * What a client must see, found the slow way: the text grows one character
 * at a time, as a model writes it, until some stop sequence is complete; the
 * text is cut where that sequence (the longest, if several end there) starts.
 */
function expected(text: string, stops: string[]): { shown: string; stopped: boolean } {
  for (let end = 1; end <= text.length; end++) {
    const prefix = text.slice(0, end);
    const complete = stops.filter((stop) => prefix.endsWith(stop)).sort((first, second) => second.length - first.length);
    if (complete.length > 0) return { shown: prefix.slice(0, end - complete[0]!.length), stopped: true };
  }
  return { shown: text, stopped: false };
}

describe("StopSequenceScanner", () => {
  it("shows exactly the text before the first stop sequence to complete, for any split into deltas", () => {
    const alphabet = fc.constantFrom("a", "b", "c", " ", "\n");
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: alphabet, maxLength: 6 }), { maxLength: 12 }),
        fc.array(fc.string({ unit: alphabet, minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        (deltas, stops) => {
          const scanner = new StopSequenceScanner(stops);
          let shown = "";
          for (const delta of deltas) {
            const piece = scanner.push(delta);
            shown += piece;
            // Nothing shown so far may contain a stop sequence.
            for (const stop of stops) expect(shown.includes(stop)).toBe(false);
          }
          shown += scanner.flush();
          expect({ shown, stopped: scanner.stopped }).toEqual(expected(deltas.join(""), stops));
        },
      ),
      { numRuns: 2000, seed: 14 },
    );
  });

  it("passes text straight through without stop sequences", () => {
    const scanner = new StopSequenceScanner([]);
    expect(scanner.push("abc")).toBe("abc");
    expect(scanner.flush()).toBe("");
  });
});
