import { describe, expect, it } from "vitest";
import { namesChoice, withChoicesAsWritten } from "../../src/agent/choices-as-written.js";
import type { JsonSchema } from "../../src/model/types.js";

const tutor: JsonSchema = {
  type: "object",
  properties: {
    subject: { type: "string" },
    level: { type: "string", enum: ["primary", "gcse", "a_level", "university"] },
    split: { type: "string", enum: ["all", "home", "away"] },
  },
  required: ["subject", "level"],
};
const call = (args: Record<string, unknown>) => ({ id: "call-1", name: "find_tutor", arguments: args });
const repaired = (args: Record<string, unknown>, request: string, fits: (args: Record<string, unknown>) => boolean = () => true) =>
  withChoicesAsWritten(call(args), tutor, request, fits).arguments;

describe("choices as written", () => {
  it("reads a choice as a word or phrase of the request, separators as spaces, a plural allowed", () => {
    expect(namesChoice("he sits his gcses next year", "gcse")).toBe(true);
    expect(namesChoice("revising for a levels", "a_level")).toBe(true);
    expect(namesChoice("a-level chemistry", "a_level")).toBe(true);
    expect(namesChoice("a gcsexam", "gcse")).toBe(false);
    expect(namesChoice("primaries", "primary")).toBe(false);
  });

  it("takes the one choice the request names over one it does not", () => {
    expect(repaired({ subject: "maths", level: "primary" }, "A maths tutor for my son, he's sitting his GCSEs next year.")).toEqual({ subject: "maths", level: "gcse" });
  });

  it("leaves the call's choice when the request names it, names two, or names none", () => {
    expect(repaired({ subject: "maths", level: "primary" }, "A primary school maths tutor, GCSE level later.")).toEqual({ subject: "maths", level: "primary" });
    expect(repaired({ subject: "maths", level: "primary" }, "Compare GCSE and university tutors.")).toEqual({ subject: "maths", level: "primary" });
    expect(repaired({ subject: "maths", level: "primary" }, "A maths tutor for my son.")).toEqual({ subject: "maths", level: "primary" });
  });

  it("never counts words that name no choice in particular, nor leaves the schema's bounds", () => {
    // "all" in a request says nothing about which games.
    expect(repaired({ subject: "x", level: "gcse", split: "away" }, "All GCSE stats please")).toEqual({ subject: "x", level: "gcse", split: "away" });
    // A repaired call the tool's schema refuses is not made.
    expect(repaired({ subject: "maths", level: "primary" }, "GCSE maths", () => false)).toEqual({ subject: "maths", level: "primary" });
  });
});
