import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DOMAINS_A } from "../../src/tune/composed-domains-a.js";
import { DOMAINS_B } from "../../src/tune/composed-domains-b.js";
import { COMPOSED_DOMAINS } from "../../src/tune/composed-recipes.js";
import { composeRequest, composeTool, type Slot } from "../../src/tune/composed-tools.js";
import { SeededRandom } from "../../src/tune/random.js";

/** Whether a slot's value is copied from the request: a text or list slot (not a choice, a number or a date). */
function copied(slot: Slot): boolean {
  if (slot.description.endsWith("in YYYY-MM-DD")) return false;
  return slot.schema instanceof z.ZodString || (slot.schema instanceof z.ZodArray && slot.schema.element instanceof z.ZodString);
}

describe("COMPOSED_DOMAINS", () => {
  it("holds both files' domains, 17 and 14", () => {
    expect(DOMAINS_A).toHaveLength(17);
    expect(DOMAINS_B).toHaveLength(14);
    expect(COMPOSED_DOMAINS).toEqual([...DOMAINS_A, ...DOMAINS_B]);
  });

  it("composes requests whose arguments fit the schema and are written in the request", () => {
    for (const domain of COMPOSED_DOMAINS) {
      for (let seed = 1; seed <= 20; seed++) {
        const random = new SeededRandom(seed);
        const composed = composeTool(domain, random);
        const { request, args } = composeRequest(composed, random);
        const label = `${composed.tool.name} (seed ${seed}): ${request}`;
        expect(composed.tool.input.safeParse(args).success, label).toBe(true);
        const text = request.toLowerCase();
        domain.slots.forEach((slot, index) => {
          const parameter = composed.parameterNames[index]!;
          if (slot.required) expect(args, label).toHaveProperty([parameter]);
          if (!(parameter in args) || !copied(slot)) return;
          const value = args[parameter];
          for (const item of Array.isArray(value) ? value : [value]) expect(text, label).toContain(String(item).toLowerCase());
        });
        expect(typeof domain.reply(composed.parameterNames.map((parameter) => args[parameter]))).toBe("string");
      }
    }
  });
});
