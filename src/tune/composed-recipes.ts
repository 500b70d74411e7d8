import type { SeededRandom } from "./random.js";
import type { Recipe } from "./recipes.js";
import { DOMAINS_A } from "./composed-domains-a.js";
import { DOMAINS_B } from "./composed-domains-b.js";
import { composeRequest, composeTool, spokenList, type ComposedTool, type Domain } from "./composed-tools.js";
import { answer, call, resultAnswer } from "./replies.js";

/**
 * Recipes over composed tools (composed-tools.ts), offered one to three at a
 * time as a user's own tools are:
 *
 * - `composed-call`: the request is what one offered tool is for; the model
 *   calls it with the values as the request gives them (a choice's member for
 *   its paraphrase, a list as a list, a name whole, an optional value only
 *   when said) and answers from the result;
 * - `composed-unserved`: the request is for a domain none of the offered
 *   tools serves; the model says so in words and calls nothing.
 */

export const COMPOSED_DOMAINS: readonly Domain[] = [...DOMAINS_A, ...DOMAINS_B];

/** The domain asked for and up to two others, each made into a tool, in a seeded order. */
function offeredWith(random: SeededRandom, chosen: Domain | undefined, count: number, unlike?: Domain): ComposedTool[] {
  const others = random.shuffle(COMPOSED_DOMAINS.filter((domain) => domain !== chosen && domain !== unlike)).slice(0, count);
  return random.shuffle([...(chosen === undefined ? [] : [chosen]), ...others]).map((domain) => composeTool(domain, random));
}

export function composedRecipes(weights: { call: number; unserved: number }): Recipe[] {
  return [
    {
      id: "composed-call",
      kind: "single-call",
      tools: [],
      weight: weights.call,
      build(random) {
        const domain = random.pick(COMPOSED_DOMAINS);
        const offered = offeredWith(random, domain, random.integer(0, 2));
        const chosen = offered.find((composed) => composed.domain === domain)!;
        const { request, args } = composeRequest(chosen, random);
        return {
          request,
          tools: offered.map((composed) => composed.tool),
          turns: [
            () => call(chosen.tool.name, args),
            (observed) =>
              resultAnswer(observed, (value) => {
                const message = (value as { message?: unknown } | undefined)?.message;
                return typeof message === "string" ? message : undefined;
              }),
          ],
        };
      },
    },
    {
      id: "composed-unserved",
      kind: "abstention",
      tools: [],
      weight: weights.unserved,
      build(random) {
        const asked = random.pick(COMPOSED_DOMAINS);
        const offered = offeredWith(random, undefined, random.integer(1, 3), asked);
        const { request } = composeRequest(composeTool(asked, random), random);
        const purposes = spokenList(offered.map((composed) => composed.domain.purpose));
        const reply = random.pick([
          `I can't ${asked.purpose} with the tools I have: they only ${purposes}.`,
          `None of my tools can ${asked.purpose}. What I can do here is ${purposes}.`,
          `Sorry, there is no tool here to ${asked.purpose}; I can only ${purposes}.`,
        ]);
        return { request, tools: offered.map((composed) => composed.tool), turns: [() => answer(reply)] };
      },
    },
  ];
}
