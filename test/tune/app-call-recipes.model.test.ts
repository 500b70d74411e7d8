import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/model/lora-adapter.js";
import { APP_CALL_RECIPES, COMPLETION_RECIPES } from "../../src/tune/app-call-recipes.js";
import { buildTrainingSet, drawsPerRound, type BuildReport, type TrainingExample } from "../../src/tune/data.js";
import { EvaluationIndex } from "../../src/tune/disjointness.js";
import { RECIPE_SETS, RECIPES, type ObservedResult } from "../../src/tune/recipes.js";
import { TrainingRenderer } from "../../src/tune/render.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;

/** The error each completion recipe's first call must fail with: the app's own. */
const FIRST_ERRORS: Record<string, string> = {
  "message-after-wifi": "wifi_off",
  "message-after-sign-in": "signed_out",
  "message-after-freeing-space": "storage_full",
  "email-after-airplane-mode": "airplane_mode",
  "headlines-after-wifi": "wifi_off",
  "engine-after-brake": "brake_not_pressed",
  "fuel-after-engine-stop": "engine_running",
};

const NEW_RECIPES = [...APP_CALL_RECIPES, ...COMPLETION_RECIPES];

/** The calls of the apps, without the find_tools searches the builder adds where retrieval missed a tool. */
function appCalls(example: TrainingExample): ObservedResult[] {
  return example.calls.filter((call) => call.name !== "find_tools");
}

/**
 * An example as it repeats for a recipe set and a seed. The files app
 * reports its files' real modification times (set when each scratch profile
 * is made), so those are masked; token ids are left out with them, the
 * rendered text stays.
 */
function repeatable(example: TrainingExample): string {
  const { sequences, ...rest } = example;
  return JSON.stringify({ ...rest, sequences: sequences.map(({ prompt, completion, writesCall }) => ({ prompt, completion, writesCall })) }).replace(
    /(modified\\*": ?\\*")[^"\\]+/g,
    "$1<mtime>",
  );
}

describe("recipe set v4: app calls and recoveries that finish the task", () => {
  let renderer: TrainingRenderer;
  let tokenizer: { fileName: string; sha256: string };
  const index = EvaluationIndex.load();
  /** Each new recipe built on its own. */
  const byRecipe = new Map<string, BuildReport>();
  /** A v4 set the size of `botpsy tune data`'s default. */
  let v4: BuildReport;

  beforeAll(async () => {
    renderer = await TrainingRenderer.load(modelPath, "prompted");
    tokenizer = { fileName: "SmolLM2-135M-Instruct.Q4_1.gguf", sha256: await sha256OfFile(modelPath) };
    for (const recipe of NEW_RECIPES) byRecipe.set(recipe.id, await buildTrainingSet({ count: 2, seed: 1, renderer, index, tokenizer, recipes: [recipe] }));
    v4 = await buildTrainingSet({ count: 240, seed: 1, renderer, index, tokenizer, recipeSet: "v4" });
  });

  afterAll(async () => {
    await renderer.dispose();
  });

  it("builds each new single call with calls that all succeed against the demo profile, and an answer in words", () => {
    for (const recipe of APP_CALL_RECIPES) {
      const report = byRecipe.get(recipe.id)!;
      expect(report.examples.length, recipe.id).toBeGreaterThanOrEqual(1);
      expect(report.dropped["run-failed"], recipe.id).toBe(0);
      for (const example of report.examples) {
        const calls = appCalls(example);
        // One call; a check-then-act first looks up what the second call needs (a message's or an email's id).
        if (recipe.kind === "check-then-act") expect(calls.map((call) => call.name), `${recipe.id}: ${example.request}`).toEqual(recipe.tools);
        else {
          expect(calls, `${recipe.id}: ${example.request}`).toHaveLength(1);
          expect(recipe.tools, `${recipe.id}: ${example.request}`).toContain(calls[0]!.name);
        }
        for (const call of example.calls) expect(call.ok, `${recipe.id}: ${example.request}: ${call.name} ${call.error?.message ?? ""}`).toBe(true);
        expect(example.sequences[example.sequences.length - 1]!.writesCall).toBe(false);
        expect(example.messages[example.messages.length - 1]!.content.length).toBeGreaterThan(5);
      }
    }
  });

  it("builds each recovery as the app's real error, the fix it names, the same call again that now works, then the answer", () => {
    expect(Object.keys(FIRST_ERRORS).sort()).toEqual(COMPLETION_RECIPES.map((recipe) => recipe.id).sort());
    for (const recipe of COMPLETION_RECIPES) {
      const report = byRecipe.get(recipe.id)!;
      expect(report.examples.length, recipe.id).toBeGreaterThanOrEqual(1);
      const [tool, fix] = recipe.tools;
      for (const example of report.examples) {
        const [failed, fixed, retried, ...more] = appCalls(example);
        expect(more, example.request).toEqual([]);
        expect([failed!.name, failed!.ok], example.request).toEqual([tool, false]);
        expect(failed!.error!.code, example.request).toBe(FIRST_ERRORS[recipe.id]);
        // The app's error says which tool fixes it.
        expect(failed!.error!.message, example.request).toContain(fix);
        expect([fixed!.name, fixed!.ok], example.request).toEqual([fix, true]);
        expect([retried!.name, retried!.ok], example.request).toEqual([tool, true]);
        expect(retried!.arguments, example.request).toEqual(failed!.arguments);
        expect(example.sequences[example.sequences.length - 1]!.writesCall).toBe(false);
        expect(example.messages[example.messages.length - 1]!.content, example.request).toMatch(/, so I /);
      }
    }
    const freed = byRecipe.get("message-after-freeing-space")!.examples[0]!;
    // The message deleted is the one the error named.
    const named = /delete_message\(message_id="([^"]+)"\)/.exec(appCalls(freed)[0]!.error!.message)![1];
    expect(appCalls(freed)[1]!.arguments).toEqual({ message_id: named });
  });

  it("draws every new recipe in a v4 set, with its tools among the calls, and drops few examples for overlap with evaluation sets", () => {
    expect(v4.recipeSet).toBe("v4");
    expect(v4.examples.length).toBe(240);
    // 240 examples are more than two rounds of v4's draws: every recipe comes up.
    expect(drawsPerRound(RECIPE_SETS.v4).length * 2).toBeLessThan(240);
    for (const recipe of NEW_RECIPES) {
      const drawn = v4.examples.filter((example) => example.recipe === recipe.id);
      expect(drawn.length, recipe.id).toBeGreaterThanOrEqual(1);
      for (const example of drawn) expect(appCalls(example).some((call) => recipe.tools.includes(call.name)), `${recipe.id}: ${example.request}`).toBe(true);
    }
    expect(v4.dropped["run-failed"]).toBe(0);
    expect(v4.dropped.overlap / v4.attempted).toBeLessThan(0.05);
    for (const example of v4.examples) expect(index.overlap(example.request)).toBeUndefined();
  });

  it("keeps v3 the default: the same examples as v3's recipes given outright, and none of v4's", async () => {
    const byDefault = await buildTrainingSet({ count: 40, seed: 4, renderer, index, tokenizer });
    const outright = await buildTrainingSet({ count: 40, seed: 4, renderer, index, tokenizer, recipes: RECIPES });
    expect(byDefault.recipeSet).toBe("v3");
    expect(outright.recipeSet).toBeUndefined();
    expect(byDefault.examples.length).toBe(40);
    expect(byDefault.examples.map(repeatable)).toEqual(outright.examples.map(repeatable));
    expect(byDefault.attempted).toBe(outright.attempted);
    const newIds = new Set(NEW_RECIPES.map((recipe) => recipe.id));
    expect(byDefault.examples.filter((example) => newIds.has(example.recipe))).toEqual([]);
  }, 300_000);
});
