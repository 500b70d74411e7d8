import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { withCopiedNameReplaced, withInventedNumberPlaced, withRepeatedValuesSeparated } from "../../src/agent/value-separation.js";
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

describe("an invented number placed", () => {
  const growth = schema({ initial_cells: { type: "number" }, doubling_time_min: { type: "number" }, elapsed_min: { type: "number" } });
  const invented = (request: string) => (value: number) => !new RegExp(String.raw`(?<![\d.])${value}(?![\d.])`).test(request);
  const placed = (args: Record<string, unknown>, parameters: JsonSchema, request: string, fits: (args: Record<string, unknown>) => boolean = () => true) =>
    withInventedNumberPlaced(call(args), parameters, request, invented(request), fits).arguments;

  it("gets the one figure the call leaves out, written in the parameter's kind of unit, converted", () => {
    const request = "A culture starts with 500 cells and doubles every 20 minutes. How many after 180 minutes?";
    expect(placed({ initial_cells: 500, doubling_time_min: 20, elapsed_min: 280 }, growth, request)).toEqual({ initial_cells: 500, doubling_time_min: 20, elapsed_min: 180 });
    expect(placed({ initial_cells: 500, doubling_time_min: 20, elapsed_min: 280 }, growth, "500 cells, doubling every 20 minutes, after 3 hours")).toEqual({
      initial_cells: 500,
      doubling_time_min: 20,
      elapsed_min: 180,
    });
  });

  it("leaves the call alone for a figure without a unit or with another kind, two figures left out, two invented numbers, or a parameter with no unit", () => {
    const games = schema({ player_count: { type: "number" }, max_minutes: { type: "number" } });
    // "5 of us" has no unit: it is not placed in a parameter counting minutes.
    expect(placed({ player_count: 90, max_minutes: 50 }, games, "5 of us and 90 minutes max")).toEqual({ player_count: 90, max_minutes: 50 });
    expect(placed({ initial_cells: 500, doubling_time_min: 20, elapsed_min: 280 }, growth, "500 cells doubling every 20 minutes, dish of 180 mm")).toEqual({
      initial_cells: 500,
      doubling_time_min: 20,
      elapsed_min: 280,
    });
    expect(placed({ initial_cells: 500, doubling_time_min: 20, elapsed_min: 280 }, growth, "500 cells, every 20 minutes, after 180 minutes or 240 minutes")).toEqual({
      initial_cells: 500,
      doubling_time_min: 20,
      elapsed_min: 280,
    });
    expect(placed({ initial_cells: 700, doubling_time_min: 20, elapsed_min: 280 }, growth, "500 cells, every 20 minutes, after 180 minutes")).toEqual({
      initial_cells: 700,
      doubling_time_min: 20,
      elapsed_min: 280,
    });
    const loan = schema({ amount: { type: "number" }, rate: { type: "number" } });
    expect(placed({ amount: 1000, rate: 7 }, loan, "borrow 1000 over 5 years")).toEqual({ amount: 1000, rate: 7 });
    // A clock time's figures are not quantities.
    const dose = schema({ first_dose: { type: "string" }, interval_hours: { type: "number" } });
    expect(placed({ first_dose: "19:30", interval_hours: 60 }, dose, "first at 7:30 pm")).toEqual({ first_dose: "19:30", interval_hours: 60 });
    expect(placed({ initial_cells: 500, doubling_time_min: 20, elapsed_min: 280 }, growth, "500 cells, every 20 minutes, after 180 minutes", () => false)).toEqual({
      initial_cells: 500,
      doubling_time_min: 20,
      elapsed_min: 280,
    });
  });
});

describe("a copied name replaced", () => {
  const job = schema({ title: { type: "string" }, department: { type: "string" }, salary_max: { type: "number" } });
  const replaced = (args: Record<string, unknown>, parameters: JsonSchema, request: string, fits: (args: Record<string, unknown>) => boolean = () => true) =>
    withCopiedNameReplaced(call(args), parameters, request, fits).arguments;

  it("gives a parameter holding a copy of another's value the name the request writes before the parameter's word", () => {
    const request = "Open a requisition for a Senior Data Engineer in the Analytics department, salary capped at 145,000.";
    expect(replaced({ title: "Senior Data Engineer", department: "Data Engineer", salary_max: 145000 }, job, request)).toEqual({
      title: "Senior Data Engineer",
      department: "Analytics",
      salary_max: 145000,
    });
    const route = schema({ vehicle: { type: "string" }, depot: { type: "string" }, first_stop: { type: "string" } });
    expect(replaced({ vehicle: "Van 12", depot: "Bradford", first_stop: "Bradford" }, route, "Van 12 leaves the Leeds depot for Bradford")).toEqual({
      vehicle: "Van 12",
      depot: "Leeds",
      first_stop: "Bradford",
    });
  });

  it("leaves a value that copies nothing, a request naming none or two, and a name another parameter holds", () => {
    const request = "A Senior Data Engineer in the Analytics department.";
    expect(replaced({ title: "Senior Data Engineer", department: "Data" }, job, "A Senior Data Engineer for data.")).toEqual({ title: "Senior Data Engineer", department: "Data" });
    expect(replaced({ title: "Senior Data Engineer", department: "Research" }, job, request)).toEqual({ title: "Senior Data Engineer", department: "Research" });
    expect(replaced({ title: "Engineer", department: "Engineer" }, job, "An Engineer for the Sales department or the Analytics department")).toEqual({
      title: "Engineer",
      department: "Engineer",
    });
    expect(replaced({ title: "Analytics", department: "Analytics lead" }, job, "Analytics lead in the Analytics department")).toEqual({ title: "Analytics", department: "Analytics lead" });
    expect(replaced({ title: "Senior Data Engineer", department: "Data Engineer" }, job, request, () => false)).toEqual({ title: "Senior Data Engineer", department: "Data Engineer" });
  });
});
