import { describe, expect, it } from "vitest";
import { z } from "zod";
import { groundCallArguments } from "../../src/agent/argument-grounding.js";
import { currencyCodeOf, namesIdentifier, withCodesAsWritten } from "../../src/agent/codes-as-written.js";
import type { JsonSchema } from "../../src/model/types.js";
import { defineTool } from "../../src/tools/tool.js";

const schema = (properties: Record<string, { type: string; description?: string; enum?: string[] }>): JsonSchema => ({ type: "object", properties, required: Object.keys(properties) });
const call = (args: Record<string, unknown>) => ({ id: "call-1", name: "tool", arguments: args });
const written = (args: Record<string, unknown>, parameters: JsonSchema, request: string, results = "", fits: (args: Record<string, unknown>) => boolean = () => true) =>
  withCodesAsWritten(call(args), parameters, request, `${request}\n${results}`, fits).arguments;

describe("codes as written", () => {
  it("writes a code the model wrapped in words as the request writes it", () => {
    const policy = schema({ policy_number: { type: "string" } });
    expect(written({ policy_number: "policy_hx-558201" }, policy, "What does policy HX-558201 cover?")).toEqual({ policy_number: "HX-558201" });
    expect(written({ policy_number: "HX-558201-policy" }, policy, "What does policy HX-558201 cover?")).toEqual({ policy_number: "HX-558201" });
  });

  it("writes a code the model cut short whole", () => {
    const hold = schema({ isbn: { type: "string" }, branch: { type: "string" } });
    expect(written({ isbn: "014-303943-3", branch: "Riverside" }, hold, "Reserve ISBN 978-0-14-303943-3 at the Riverside branch")).toEqual({
      isbn: "978-0-14-303943-3",
      branch: "Riverside",
    });
  });

  it("takes the one code out of a sentence written into an identifier", () => {
    const check = schema({ candidate_id: { type: "string" }, include_credit_history: { type: "boolean" } });
    const request = "Kick off a background check on candidate CAND-7781, criminal record only.";
    expect(written({ candidate_id: request, include_credit_history: false }, check, request)).toEqual({ candidate_id: "CAND-7781", include_credit_history: false });
  });

  it("gives an identifier holding a copied name the one code the call leaves out", () => {
    const entry = schema({ regatta_id: { type: "string" }, boat_name: { type: "string" }, sail_number: { type: "string" } });
    expect(written({ regatta_id: "Sea Lark", boat_name: "Sea Lark", sail_number: "GBR 4471" }, entry, "Enter my boat Sea Lark in regatta CWR-2025, sail number GBR 4471.")).toEqual({
      regatta_id: "CWR-2025",
      boat_name: "Sea Lark",
      sail_number: "GBR 4471",
    });
  });

  it("writes a currency named where a code is asked as its code", () => {
    const rate = schema({
      base_currency: { type: "string", description: "ISO 4217 code of the currency being converted from, e.g. GBP." },
      quote_currency: { type: "string", description: "Currency code to convert to." },
      note: { type: "string", description: "Free text." },
    });
    expect(written({ base_currency: "euro", quote_currency: "Japanese yen", note: "euro" }, rate, "the euro to Japanese yen rate")).toEqual({
      base_currency: "EUR",
      quote_currency: "JPY",
      note: "euro",
    });
    expect(currencyCodeOf("Canadian dollars")).toBe("CAD");
    expect(currencyCodeOf("dollar")).toBe("USD");
    expect(currencyCodeOf("yen notes")).toBeUndefined();
  });

  it("leaves codes the conversation writes, short codes written with a word, dates, choices between codes and what the schema refuses", () => {
    const order = schema({ order_id: { type: "string" }, note: { type: "string" } });
    // A tool's id from an earlier result is the conversation's own.
    expect(written({ order_id: "ord_5521", note: "late" }, order, "Where is my order ORD-77?", "orders: ord_5521 (shipped)")).toEqual({ order_id: "ord_5521", note: "late" });
    // A code written with a word ("GBR 4471") in an identifier is not a sentence.
    const sail = schema({ sail_number: { type: "string" } });
    expect(written({ sail_number: "GBR 4471" }, sail, "sail number GBR 4471")).toEqual({ sail_number: "GBR 4471" });
    // Free text holding a code is not an identifier.
    expect(written({ note: "ask about the ORD-77 parcel please" }, order, "Note: ask about ORD-77 please")).toEqual({ note: "ask about the ORD-77 parcel please" });
    // A path or a list holding a code among other words is not an identifier.
    const task = schema({ list: { type: "string" }, title: { type: "string" } });
    expect(written({ list: "Work/q4-report-backwards.md", title: "backup" }, task, "copy the Q4 report to a backup")).toEqual({ list: "Work/q4-report-backwards.md", title: "backup" });
    // Dates are date grounding's.
    const trip = schema({ start_ref: { type: "string" } });
    expect(written({ start_ref: "2025-06-02T10:00" }, trip, "from 2025-06-02 at ten")).toEqual({ start_ref: "2025-06-02T10:00" });
    // Two codes held: a choice between them.
    const swap = schema({ item_code: { type: "string" } });
    expect(written({ item_code: "ab-12_cd-34" }, swap, "swap AB-12 for CD-34")).toEqual({ item_code: "ab-12_cd-34" });
    // Two unused codes for one copied name: a guess.
    const entry = schema({ regatta_id: { type: "string" }, boat_name: { type: "string" } });
    expect(written({ regatta_id: "Sea Lark", boat_name: "Sea Lark" }, entry, "Sea Lark in CWR-2025 or CWR-2026")).toEqual({ regatta_id: "Sea Lark", boat_name: "Sea Lark" });
    const policy = schema({ policy_number: { type: "string" } });
    expect(written({ policy_number: "policy_hx-558201" }, policy, "policy HX-558201", "", () => false)).toEqual({ policy_number: "policy_hx-558201" });
  });

  it("reads identifiers from parameter names", () => {
    expect(["candidate_id", "policyNumber", "ref_code", "isbn", "docket"].every(namesIdentifier)).toBe(true);
    expect(["boat_name", "notes", "identity_hint", "window"].some(namesIdentifier)).toBe(false);
  });

  it("runs inside argument grounding, so the repaired call is the one judged", () => {
    const tool = defineTool({
      name: "get_policy_details",
      description: "Returns the coverage of an insurance policy.",
      risk: "read",
      input: z.object({ policy_number: z.string().describe("Policy number, e.g. HX-558201.") }),
      run: () => "ok",
    });
    const grounding = groundCallArguments(call({ policy_number: "policy_hx-558201" }), tool, { userText: "What does policy HX-558201 cover?", results: [] });
    expect(grounding).toEqual({ kind: "grounded", call: { ...call({}), arguments: { policy_number: "HX-558201" } } });
  });
});
