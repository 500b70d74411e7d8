import { describe, expect, it } from "vitest";
import { ungroundedArguments } from "../../src/agent/argument-grounding.js";
import { groundCallDates } from "../../src/agent/date-grounding.js";
import { OWN_FORM_RECIPES } from "../../src/tune/own-form-recipes.js";
import { SeededRandom } from "../../src/tune/random.js";
import type { RecipeClock, RecipeInstance } from "../../src/tune/recipes.js";
import { toolSpec, type Tool } from "../../src/tools/tool.js";

const clock: RecipeClock = { today: "2026-12-01", plusDays: (days) => `2026-12-${String(1 + days).padStart(2, "0")}`, weekday: () => "Tuesday" };
const [callRecipe, mismatchRecipe] = OWN_FORM_RECIPES;

/** The call the recipe's first turn makes. */
function firstCall(instance: RecipeInstance): { name: string; arguments: Record<string, unknown> } {
  const reply = instance.turns[0]!([]) as { toolCalls?: { name: string; arguments: Record<string, unknown> }[] };
  return reply.toolCalls![0]!;
}

function draws(count: number): { instance: RecipeInstance; call: { name: string; arguments: Record<string, unknown> }; tool: Tool }[] {
  const random = new SeededRandom(7);
  return Array.from({ length: count }, () => {
    const instance = callRecipe!.build(random, clock);
    const call = firstCall(instance);
    return { instance, call, tool: instance.tools!.find((tool) => tool.name === call.name)! };
  });
}

describe("v5's own-form recipes", () => {
  it("calls an offered tool with arguments its schema takes, and the tool runs on them", async () => {
    for (const { call, tool } of draws(200)) {
      expect(tool, call.name).toBeDefined();
      expect(tool.input.safeParse(call.arguments).success, JSON.stringify(call)).toBe(true);
      await expect(Promise.resolve(tool.run(call.arguments as never, {} as never))).resolves.toBeDefined();
    }
  });

  it("writes each value in the form the tool's description states, whatever form the request used", () => {
    const seen = new Set<string>();
    for (const { instance, call } of draws(300)) {
      const args = call.arguments;
      seen.add(call.name);
      if (call.name === "savings_growth") expect(args.annual_rate as number).toBeLessThan(0.1);
      if (call.name === "permit_renewal_slot") expect(args.date).toMatch(/^\d{2}\/\d{2}\/2027$/);
      if (call.name === "book_return_fee") expect(`${String(args.due_date)} ${String(args.returned_date)}`).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}-\d{2}-\d{4}$/);
      if (call.name === "convert_temperature") expect([args.from_unit, args.to_unit].every((unit) => ["C", "F", "K"].includes(String(unit)))).toBe(true);
      // An optional value only when the request says it.
      if (call.name === "road_distance") expect("unit" in args).toBe(/miles|kilometres/.test(instance.request));
      if (call.name === "list_statistics") expect("measure" in args).toBe(/median|range/.test(instance.request));
      if (call.name === "compound_balance") expect("periods_per_year" in args).toBe(/compounded|twice a year/.test(instance.request));
    }
    expect(seen.size).toBe(9);
  });

  it("makes calls botpsy's own checks pass at inference: every value grounded in the request, dates already as the tool wants them", () => {
    const now = new Date("2026-12-01T09:00:00Z");
    for (const { instance, call, tool } of draws(300)) {
      const parameters = toolSpec(tool).parameters;
      expect(ungroundedArguments(call.arguments, parameters, { userText: instance.request, results: [] }), instance.request).toEqual([]);
      const dated = groundCallDates({ id: "call-1", ...call }, instance.request, { now, timeZone: "UTC" }, parameters);
      expect(dated.kind, `${instance.request} ${JSON.stringify(call.arguments)}`).toBe("unchanged");
    }
  });

  it("answers near misses in words, with the same tools offered", () => {
    const random = new SeededRandom(3);
    for (let index = 0; index < 60; index++) {
      const instance = mismatchRecipe!.build(random, clock);
      expect(instance.tools!.length).toBeGreaterThanOrEqual(1);
      const reply = instance.turns[0]!([]) as { text?: string; toolCalls?: unknown[] };
      expect(reply.toolCalls ?? []).toEqual([]);
      expect(reply.text!.length).toBeGreaterThan(3);
    }
  });
});
