import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { withRepeatedValuesSeparated } from "../../src/agent/value-separation.js";
import type { JsonSchema } from "../../src/model/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { freshNotesProfile } from "./fixtures/notes-app.js";

const schema = (properties: Record<string, { type: string; description?: string }>): JsonSchema => ({ type: "object", properties, required: Object.keys(properties) });
const call = (args: Record<string, unknown>) => ({ id: "call-1", name: "tool", arguments: args });
const separated = (args: Record<string, unknown>, parameters: JsonSchema, request: string, fits: (args: Record<string, unknown>) => boolean = () => true) =>
  withRepeatedValuesSeparated(call(args), parameters, request, fits).arguments;

describe("value separation", () => {
  it("gives a number the request writes once to one parameter, and the value the call left out to the other, in the request's order", () => {
    const loan = schema({ amount: { type: "number" }, monthly_payment: { type: "number" }, fees: { type: "number" } });
    expect(separated({ amount: 250000, monthly_payment: 1200, fees: 250000 }, loan, "I borrowed 250,000, pay 1,200 a month and paid 4,500 in fees.")).toEqual({
      amount: 250000,
      monthly_payment: 1200,
      fees: 4500,
    });
    // The request's order against the schema's: the left-out value came first.
    const box = schema({ width_cm: { type: "number" }, height_cm: { type: "number" } });
    expect(separated({ width_cm: 80, height_cm: 80 }, box, "a frame 40 by 80 cm")).toEqual({ width_cm: 40, height_cm: 80 });
  });

  it("places a value written with a unit at the one parameter counting in that kind of unit first", () => {
    const mix = schema({ strength: { type: "number", description: "Concentration wanted, mol/L." }, volume_ml: { type: "number" }, stock: { type: "number" } });
    expect(separated({ strength: 500, volume_ml: 500, stock: 5 }, mix, "make 500 mL at 0.2 M from a 5 M stock")).toEqual({ strength: 0.2, volume_ml: 500, stock: 5 });
  });

  it("separates codes (tokens with figures) as it does numbers", () => {
    const route = schema({ from_zip: { type: "string" }, to_zip: { type: "string" }, parcels: { type: "number" } });
    expect(separated({ from_zip: "75001", to_zip: "75001", parcels: 2 }, route, "2 parcels from 75001 to 69002")).toEqual({ from_zip: "75001", to_zip: "69002", parcels: 2 });
    const ticket = schema({ case_id: { type: "string" }, order_id: { type: "string" } });
    expect(separated({ case_id: "ord-5521", order_id: "ord-5521" }, ticket, "Open case CS-88 about order ORD-5521")).toEqual({ case_id: "CS-88", order_id: "ORD-5521" });
  });

  it("leaves a value the request writes twice, a call with no value left over, and a choice among several", () => {
    const tile = schema({ short_cm: { type: "number" }, long_cm: { type: "number" } });
    expect(separated({ short_cm: 60, long_cm: 60 }, tile, "60 x 60 cm tiles, 60 of them, 12 boxes")).toEqual({ short_cm: 60, long_cm: 60 });
    expect(separated({ short_cm: 5, long_cm: 5 }, tile, "a square of side 5")).toEqual({ short_cm: 5, long_cm: 5 });
    // Two left-out values for one place: a guess among them, so nothing changes.
    expect(separated({ short_cm: 30, long_cm: 30 }, tile, "30 cm tiles, 45 or 60 long")).toEqual({ short_cm: 30, long_cm: 30 });
    // A value in the rest of the call, even as minutes of hours or inside a date, is used already.
    const trip = schema({ start: { type: "string" }, minutes: { type: "number" }, stops: { type: "number" }, legs: { type: "number" } });
    expect(separated({ start: "2026-03-14", minutes: 120, stops: 3, legs: 3 }, trip, "on 14 March 2026, 2 hours, 3 stops")).toEqual({
      start: "2026-03-14",
      minutes: 120,
      stops: 3,
      legs: 3,
    });
  });

  it("keeps the call when the schema refuses the separated values", () => {
    const count = schema({ adults: { type: "integer" }, children: { type: "integer" } });
    const args = { adults: 2, children: 2 };
    const result = withRepeatedValuesSeparated(call(args), count, "2 adults and 0.5 of a child", () => false);
    expect(result.arguments).toBe(args);
  });

  it("runs the agent's call with the values separated", async () => {
    const profile = freshNotesProfile();
    try {
      const ran: Record<string, unknown>[] = [];
      const transfer = defineTool({
        name: "move_money",
        description: "Move money between two accounts.",
        input: z.object({ from_account: z.string(), to_account: z.string(), amount: z.number().positive() }),
        risk: "write",
        run: (input) => {
          ran.push(input);
          return { moved: true };
        },
      });
      const model = new ScriptedModel([{ toolCalls: [{ name: "move_money", arguments: { from_account: "AC-1001", to_account: "AC-1001", amount: 50 } }] }, "Moved."]);
      const outcome = await new Agent({ model, profile, toolbox: new ToolBox([transfer]) }).run("move 50 from AC-1001 to AC-2002").outcome;
      expect(outcome.calls[0]).toMatchObject({ status: "ok", call: { arguments: { from_account: "AC-1001", to_account: "AC-2002", amount: 50 } } });
      expect(ran).toEqual([{ from_account: "AC-1001", to_account: "AC-2002", amount: 50 }]);
    } finally {
      profile.close();
    }
  });
});
