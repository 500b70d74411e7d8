import { describe, expect, it } from "vitest";
import { ungroundedArguments } from "../../src/agent/argument-grounding.js";
import { groundCallDates } from "../../src/agent/date-grounding.js";
import { COMPOSED_DOMAINS, composedRecipes } from "../../src/tune/composed-recipes.js";
import { composeRequest, composeTool } from "../../src/tune/composed-tools.js";
import { SeededRandom } from "../../src/tune/random.js";
import type { RecipeClock, RecipeInstance } from "../../src/tune/recipes.js";
import { toolSpec } from "../../src/tools/tool.js";

const clock: RecipeClock = { today: "2026-12-01", plusDays: (days) => `2026-12-${String(1 + days).padStart(2, "0")}`, weekday: () => "Tuesday" };
const [callRecipe, unservedRecipe] = composedRecipes({ call: 1, unserved: 1 });

function firstReply(instance: RecipeInstance): { text?: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[] } {
  return instance.turns[0]!([]) as { text?: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[] };
}

describe("composed tools", () => {
  it("has domains whose tool names are unique and whose every slot has names", () => {
    const names = COMPOSED_DOMAINS.flatMap((domain) => domain.names);
    expect(new Set(names).size).toBe(names.length);
    expect(COMPOSED_DOMAINS.length).toBeGreaterThanOrEqual(25);
    for (const domain of COMPOSED_DOMAINS) for (const slot of domain.slots) expect(slot.names.length, domain.names[0]).toBeGreaterThan(0);
  });

  it("makes a different tool from one domain under different seeds (names of the tool and its parameters)", () => {
    const domain = COMPOSED_DOMAINS[0]!;
    const shapes = new Set(Array.from({ length: 30 }, (_, seed) => {
      const composed = composeTool(domain, new SeededRandom(seed));
      return `${composed.tool.name}(${composed.parameterNames.join(",")})`;
    }));
    expect(shapes.size).toBeGreaterThan(5);
  });

  it("leaves an optional value out of the call when the request does not give it, and puts it in when it does", () => {
    let left = 0;
    let given = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const random = new SeededRandom(seed);
      const domain = random.pick(COMPOSED_DOMAINS);
      const composed = composeTool(domain, random);
      const { args } = composeRequest(composed, random);
      domain.slots.forEach((slot, index) => {
        const name = composed.parameterNames[index]!;
        if (slot.required) expect(args, name).toHaveProperty(name);
        else if (name in args) given++;
        else left++;
      });
    }
    expect(left).toBeGreaterThan(50);
    expect(given).toBeGreaterThan(50);
  });
});

describe("v7's composed recipes", () => {
  it("calls the offered tool the request is for, with arguments its schema takes, and answers from its result", async () => {
    const random = new SeededRandom(11);
    const now = new Date("2026-12-01T09:00:00Z");
    for (let draw = 0; draw < 300; draw++) {
      const instance = callRecipe!.build(random, clock);
      const call = firstReply(instance).toolCalls![0]!;
      const tool = instance.tools!.find((offered) => offered.name === call.name)!;
      expect(tool, call.name).toBeDefined();
      expect(instance.tools!.length).toBeLessThanOrEqual(3);
      expect(tool.input.safeParse(call.arguments).success, JSON.stringify(call)).toBe(true);
      const value = (await Promise.resolve(tool.run(call.arguments as never, {} as never))) as { message: string };
      expect(value.message).toMatch(/\w/);
      expect(value.message).not.toContain("undefined");
      // botpsy's own checks at inference pass on the call: every value grounded in the request, dates as the tool wants them.
      const parameters = toolSpec(tool).parameters;
      expect(ungroundedArguments(call.arguments, parameters, { userText: instance.request, results: [] }), `${instance.request} ${JSON.stringify(call.arguments)}`).toEqual([]);
      const dated = groundCallDates({ id: "call-1", ...call }, instance.request, { now, timeZone: "UTC" }, parameters);
      expect(dated.kind, `${instance.request} ${JSON.stringify(call.arguments)}`).toBe("unchanged");
      const done = instance.turns[1]!([{ name: call.name, arguments: call.arguments, ok: true, value }]) as { text: string };
      expect(done.text).toBe(value.message);
      const failed = instance.turns[1]!([{ name: call.name, arguments: call.arguments, ok: false, error: { code: "unavailable", message: "The service is closed today." } }]) as { text: string };
      expect(failed.text).toBe("That did not work: The service is closed today.");
    }
  });

  it("answers in words, naming what the offered tools do, when the request is for a tool that is not offered", () => {
    const random = new SeededRandom(12);
    for (let draw = 0; draw < 200; draw++) {
      const instance = unservedRecipe!.build(random, clock);
      const reply = firstReply(instance);
      expect(reply.toolCalls).toBeUndefined();
      expect(instance.tools!.length).toBeGreaterThanOrEqual(1);
      const offeredDomains = COMPOSED_DOMAINS.filter((domain) => domain.names.some((name) => instance.tools!.some((tool) => tool.name === name)));
      expect(offeredDomains).toHaveLength(instance.tools!.length);
      for (const domain of offeredDomains) expect(reply.text).toContain(domain.purpose);
      const asked = COMPOSED_DOMAINS.find((domain) => reply.text!.includes(`can't ${domain.purpose}`) || reply.text!.includes(`can ${domain.purpose}`) || reply.text!.includes(`to ${domain.purpose};`));
      expect(asked, reply.text).toBeDefined();
      expect(offeredDomains).not.toContain(asked);
    }
  });
});
