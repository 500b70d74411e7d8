import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { USER_TASKS } from "../../src/eval/injection/cases.js";
import { suiteDirectory } from "../../src/eval/suites.js";
import { EvaluationIndex, ngramsOf, wordsOf } from "../../src/tune/disjointness.js";
import { SeededRandom } from "../../src/tune/random.js";
import { RECIPES } from "../../src/tune/recipes.js";

describe("the evaluation overlap check", () => {
  const index = EvaluationIndex.load();

  it("splits words without case or punctuation and makes 8-grams", () => {
    expect(wordsOf("Set a 5-minute TIMER, please!")).toEqual(["set", "a", "5", "minute", "timer", "please"]);
    expect(ngramsOf("one two three four five six seven eight nine")).toEqual([
      "one two three four five six seven eight",
      "two three four five six seven eight nine",
    ]);
    expect(ngramsOf("too short to hold one")).toEqual([]);
  });

  it("indexes every evaluation set from the files evaluation reads: each scenario suite, BFCL and the injection suite", () => {
    expect(index.sizes["apps suite"]).toBeGreaterThan(100);
    expect(index.sizes["nearmiss suite"]).toBeGreaterThan(100);
    expect(index.sizes["offtopic suite"]).toBeGreaterThan(50);
    expect(index.sizes.BFCL).toBeGreaterThan(10_000);
    expect(index.sizes["injection suite"]).toBeGreaterThan(100);
  });

  it("finds a BFCL question, an apps-suite request and an injection task, even reworded in case and punctuation", () => {
    const bfclLine = JSON.parse(readFileSync(join("data", "bfcl-v4", "BFCL_v4_simple_python.json"), "utf8").split("\n")[0]!) as {
      question: Array<Array<{ content: string }>>;
    };
    const question = bfclLine.question[0]![0]!.content;
    expect(index.overlap(`Please: ${question.toUpperCase()}`)?.source).toBe("BFCL");

    const scenarios = JSON.parse(readFileSync(join(suiteDirectory("apps"), "device.json"), "utf8")) as Array<{ turns: Array<{ user: string }> }>;
    const request = scenarios[0]!.turns[0]!.user;
    expect(index.overlap(request)?.source).toBe("apps suite");

    expect(index.overlap(USER_TASKS[0]!.request)?.source).toBe("injection suite");
    const offtopic = JSON.parse(readFileSync(join(suiteDirectory("offtopic"), "life.json"), "utf8")) as Array<{ turns: Array<{ user: string }> }>;
    expect(index.overlap(offtopic[0]!.turns[0]!.user.toUpperCase())?.source).toBe("offtopic suite");
    expect(index.overlap("Water the basil on the balcony before the heat wave arrives this weekend")).toBeUndefined();
  });

  it("recipe requests are disjoint from the evaluation sets for most drawings (the builder drops the rest)", () => {
    const random = new SeededRandom(11);
    const clock = { today: "2027-04-01", plusDays: (days: number) => `2027-04-${String(1 + days).padStart(2, "0")}`, weekday: () => "Thursday" };
    let overlapping = 0;
    let drawn = 0;
    for (let round = 0; round < 20; round++) {
      for (const recipe of RECIPES) {
        drawn++;
        if (index.overlap(recipe.build(random, clock).request) !== undefined) overlapping++;
      }
    }
    expect(drawn).toBe(20 * RECIPES.length);
    expect(overlapping / drawn).toBeLessThan(0.05);
  });
});
