import { describe, expect, it } from "vitest";
import { builtInApps } from "../../src/apps/registry.js";
import { APP_CALL_RECIPES, COMPLETION_RECIPES } from "../../src/tune/app-call-recipes.js";
import { drawsPerRound } from "../../src/tune/data.js";
import { SeededRandom } from "../../src/tune/random.js";
import { findRecipe, isRecipeSetName, RECIPE_SET_FORCED_TURNS, RECIPE_SET_NAMES, RECIPE_SETS, RECIPES, type Recipe, type RecipeClock } from "../../src/tune/recipes.js";

const clock: RecipeClock = { today: "2027-04-01", plusDays: (days) => `2027-04-${String(1 + days).padStart(2, "0")}`, weekday: () => "Thursday" };

/** The request and the reply of an abstention recipe's one turn, `times` drawings. */
function drawAbstentions(recipe: Recipe, times: number, seed = 3): Array<{ request: string; reply: string }> {
  const random = new SeededRandom(seed);
  return Array.from({ length: times }, () => {
    const instance = recipe.build(random, clock);
    expect(instance.turns.length).toBe(1);
    const reply = instance.turns[0]!([]);
    expect(reply.toolCalls).toBeUndefined();
    return { request: instance.request, reply: reply.text ?? "" };
  });
}

describe("training recipes", () => {
  it("draws each recipe as many times a round as its weight", () => {
    const light = { ...findRecipe("timer")! };
    const heavy = { ...findRecipe("near-miss")!, weight: 3 };
    expect(drawsPerRound([light, heavy]).map((recipe) => recipe.id)).toEqual(["timer", "near-miss", "near-miss", "near-miss"]);
    expect(() => drawsPerRound([{ ...light, weight: 0 }])).toThrow(/weight 0/);
    expect(() => drawsPerRound([{ ...light, weight: 1.5 }])).toThrow(/whole number/);
  });

  it("weighs abstentions and clarifications at about two fifths of a round, and dead ends at under a fifth", () => {
    const round = drawsPerRound(RECIPES);
    const abstaining = round.filter((recipe) => recipe.kind === "abstention" || recipe.kind === "clarification").length;
    expect(abstaining / round.length).toBeGreaterThan(0.42);
    expect(abstaining / round.length).toBeLessThan(0.48);
    // A first turn in words (no search) as often as possible without starving the calls.
    const answeringFirst = round.filter((recipe) => (recipe.kind === "abstention" || recipe.kind === "clarification") && recipe.id !== "searched-no-fit").length;
    expect(answeringFirst / round.length).toBeGreaterThan(0.4);
    expect(round.filter((recipe) => recipe.kind === "dead-end").length / round.length).toBeLessThan(0.2);
  });

  it("composes abstention requests from parts: many different requests, each with a short honest reply", () => {
    for (const id of ["out-of-scope", "general-knowledge", "near-miss"]) {
      const drawn = drawAbstentions(findRecipe(id)!, 200);
      expect(new Set(drawn.map((entry) => entry.request)).size, id).toBeGreaterThan(100);
      for (const { request, reply } of drawn) {
        expect(request.trim(), id).not.toBe("");
        expect(request, id).not.toMatch(/\b(please|could you|can you) (please|could you|can you)\b/);
        expect(reply.length, request).toBeGreaterThan(10);
        expect(reply.length, request).toBeLessThan(260);
      }
    }
  });

  it("answers arithmetic and conversions correctly", () => {
    let checked = 0;
    for (const { reply } of drawAbstentions(findRecipe("general-knowledge")!, 400)) {
      const product = /^(\d+) × (\d+) = (\d+)\.$/.exec(reply);
      if (product !== null) expect(Number(product[1]) * Number(product[2])).toBe(Number(product[3]));
      const sum = /^(\d+) \+ (\d+) = (\d+)\.$/.exec(reply);
      if (sum !== null) expect(Number(sum[1]) + Number(sum[2])).toBe(Number(sum[3]));
      const quotient = /^(\d+) ÷ (\d+) = (\d+)\.$/.exec(reply);
      if (quotient !== null) expect(Number(quotient[1]) / Number(quotient[2])).toBe(Number(quotient[3]));
      const miles = /^(\d+) miles is about ([\d.]+) km\.$/.exec(reply);
      if (miles !== null) expect(Number(miles[2])).toBeCloseTo(Number(miles[1]) * 1.609344, 1);
      const celsius = /^(-?\d+) °C is ([\d.-]+) °F\.$/.exec(reply);
      if (celsius !== null) expect(Number(celsius[2])).toBeCloseTo((Number(celsius[1]) * 9) / 5 + 32, 5);
      if ([product, sum, quotient, miles, celsius].some((match) => match !== null)) checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });
});

describe("recipe sets", () => {
  const appTools = new Set(builtInApps().flatMap((app) => app.tools.map((tool) => tool.name)));

  it("keeps v3 the RECIPES array, and makes v4 v3 in the same order (its abstentions and clarifications weighed twice) followed by the new recipes", () => {
    expect(RECIPE_SETS.v3).toBe(RECIPES);
    RECIPES.forEach((recipe, position) => {
      const drawn = RECIPE_SETS.v4[position]!;
      if (recipe.kind === "abstention" || recipe.kind === "clarification") expect(drawn).toEqual({ ...recipe, weight: 2 * (recipe.weight ?? 1) });
      else expect(drawn).toBe(recipe);
    });
    // About a third of a v4 round answers in words (v3: 45%).
    const round = drawsPerRound(RECIPE_SETS.v4);
    const abstaining = round.filter((recipe) => recipe.kind === "abstention" || recipe.kind === "clarification").length / round.length;
    expect(abstaining).toBeGreaterThan(0.3);
    expect(abstaining).toBeLessThan(0.4);
    expect(RECIPE_SETS.v4.slice(RECIPES.length).map((recipe) => recipe.id)).toEqual([...APP_CALL_RECIPES, ...COMPLETION_RECIPES].map((recipe) => recipe.id));
    const ids = RECIPE_SETS.v4.map((recipe) => recipe.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(RECIPE_SET_NAMES).toEqual(["v3", "v4", "v5", "v6", "v7"]);
    expect(isRecipeSetName("v4")).toBe(true);
    expect(isRecipeSetName("v5")).toBe(true);
    expect(isRecipeSetName("v6")).toBe(true);
    expect(isRecipeSetName("v7")).toBe(true);
    expect(isRecipeSetName("v8")).toBe(false);
    // v5 is v4 and the own-form recipes after it, so v4's draws come first, unchanged.
    expect(RECIPE_SETS.v5.slice(0, RECIPE_SETS.v4.length)).toEqual(RECIPE_SETS.v4);
    // v6 draws v5's recipes and differs only in how it trains the router's forced turns.
    expect(RECIPE_SETS.v6).toBe(RECIPE_SETS.v5);
    expect(RECIPE_SET_NAMES.map((name) => RECIPE_SET_FORCED_TURNS[name])).toEqual(["prefix-in-context", "prefix-in-context", "prefix-in-context", "trained", "prefix-in-context"]);
    // v7 is v5 and the composed tools' recipes after it, drawn as about two fifths of a round.
    expect(RECIPE_SETS.v7.slice(0, RECIPE_SETS.v5.length)).toEqual(RECIPE_SETS.v5);
    const v7Round = drawsPerRound(RECIPE_SETS.v7);
    const composedShare = v7Round.filter((recipe) => recipe.id.startsWith("composed-")).length / v7Round.length;
    expect(composedShare).toBeGreaterThan(0.35);
    expect(composedShare).toBeLessThan(0.45);
    expect(isRecipeSetName("toString")).toBe(false);
  });

  it("gives v4 single calls of at least 20 app tools that v3's single calls do not cover", () => {
    const v3SingleCalls = new Set(RECIPES.filter((recipe) => recipe.kind === "single-call").flatMap((recipe) => recipe.tools));
    const added = new Set(APP_CALL_RECIPES.flatMap((recipe) => recipe.tools).filter((tool) => !v3SingleCalls.has(tool)));
    expect(added.size).toBeGreaterThanOrEqual(20);
    for (const recipe of APP_CALL_RECIPES) {
      expect(["single-call", "check-then-act"], recipe.id).toContain(recipe.kind);
      for (const tool of recipe.tools) expect(appTools, `${recipe.id}: ${tool}`).toContain(tool);
    }
  });

  it("makes each completion recipe a recovery of one app tool and the fix its error names", () => {
    expect(COMPLETION_RECIPES.length).toBeGreaterThanOrEqual(4);
    for (const recipe of COMPLETION_RECIPES) {
      expect(recipe.kind, recipe.id).toBe("recovery");
      expect(recipe.tools, recipe.id).toHaveLength(2);
      for (const tool of recipe.tools) expect(appTools, `${recipe.id}: ${tool}`).toContain(tool);
      // Each puts the profile in the failing state, and plays the call, the fix, the call again and an answer.
      const instance = recipe.build(new SeededRandom(1), clock);
      expect(instance.prepare, recipe.id).toBeDefined();
      expect(instance.turns, recipe.id).toHaveLength(4);
    }
  });

  it("draws requests in several phrasings for each new recipe", () => {
    for (const recipe of [...APP_CALL_RECIPES, ...COMPLETION_RECIPES]) {
      const random = new SeededRandom(9);
      const requests = new Set(Array.from({ length: 40 }, () => recipe.build(random, clock).request));
      expect(requests.size, recipe.id).toBeGreaterThanOrEqual(4);
      for (const request of requests) expect(request.trim(), recipe.id).not.toBe("");
    }
  });
});
