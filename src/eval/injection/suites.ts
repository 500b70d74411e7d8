import type { AttackCase, InjectionSuiteName } from "./attack-case.js";
import { injectionCases } from "./cases.js";
import { heldoutInjectionCases } from "./heldout-cases.js";

/** The cases of an injection suite by its name: the development suite or the held-out one. */
export function injectionSuiteCases(suite: InjectionSuiteName): AttackCase[] {
  return suite === "injection" ? injectionCases() : heldoutInjectionCases();
}
