import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { convertedValue, parameterUnit, percentForm, percentMentions, percentValue, unitMentions, withUnitsConverted } from "../../src/agent/unit-conversion.js";
import type { JsonSchema } from "../../src/model/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { freshNotesProfile } from "./fixtures/notes-app.js";

describe("unit conversion", () => {
  it("reads the quantities a request gives with a unit", () => {
    const read = (text: string): [number, string, number][] => unitMentions(text).map((mention) => [mention.value, mention.unit.dimension, mention.unit.factor]);
    expect(read("1 litre of saline over 8 hours")).toEqual([
      [1, "volume", 1000],
      [8, "time", 3600],
    ]);
    expect(read("the cat is 3800 g")).toEqual([[3800, "mass", 1]]);
    expect(read("after two and a half days")).toEqual([[2.5, "time", 86_400]]);
    expect(read("an hour and a half, then half a litre")).toEqual([
      [1.5, "time", 3600],
      [0.5, "volume", 1000],
    ]);
    expect(read("a 1,500-km drive")).toEqual([[1500, "length", 1000]]);
    // "a" counts one only before a unit's word, not a symbol; other words are no units.
    expect(read("a m of rope, 5 apples, 10 am")).toEqual([]);
  });

  it("finds a number parameter's unit in its name or description, and none for a rate or a place on the clock", () => {
    expect(parameterUnit("volume_ml", undefined)).toEqual({ dimension: "volume", factor: 1 });
    expect(parameterUnit("durationMinutes", undefined)).toEqual({ dimension: "time", factor: 60 });
    expect(parameterUnit("weight", "Weight of the parcel (kg)")).toEqual({ dimension: "mass", factor: 1000 });
    expect(parameterUnit("timeout", "How long to wait, in seconds")).toEqual({ dimension: "time", factor: 1 });
    expect(parameterUnit("pace_seconds_per_km", undefined)).toBeUndefined();
    expect(parameterUnit("rate", "Drops in mL/min")).toBeUndefined();
    expect(parameterUnit("start_hour", "Hour of the day")).toBeUndefined();
    expect(parameterUnit("age_years", undefined)).toBeUndefined();
    expect(parameterUnit("count", "How many")).toBeUndefined();
  });

  it("converts a copied figure only when the user never wrote it in the parameter's unit and the readings agree", () => {
    const minutes = { dimension: "time" as const, factor: 60 };
    expect(convertedValue(8, minutes, unitMentions("over 8 hours"))).toBe(480);
    expect(convertedValue(480, minutes, unitMentions("over 8 hours"))).toBeUndefined();
    expect(convertedValue(8, minutes, unitMentions("8 hours, or 8 minutes if rushed"))).toBeUndefined();
    expect(convertedValue(2, minutes, unitMentions("2 hours or 2 days"))).toBeUndefined();
    expect(convertedValue(3, minutes, unitMentions("3 km"))).toBeUndefined();
    expect(convertedValue(3800, { dimension: "mass", factor: 1000 }, unitMentions("3800 g"))).toBe(3.8);
  });

  it("writes a percentage the way the parameter asks for it, and leaves it when the parameter does not say", () => {
    expect(percentMentions("a 1,899 purchase at 8.25%, 5 percent off, 3 per cent fee, 2% ")).toEqual([8.25, 5, 3, 2]);
    expect(percentForm("tax_rate", "Tax rate as a decimal fraction, e.g. 0.07 for 7%.")).toBe("decimal");
    expect(percentForm("rate", "Yearly rate, between 0 and 1")).toBe("decimal");
    expect(percentForm("waste_percent", "Extra allowed for cuts")).toBe("percent");
    expect(percentForm("discount", "Discount as a percentage")).toBe("percent");
    expect(percentForm("rate", "The interest rate")).toBeUndefined();
    expect(percentValue(8.25, "decimal", [8.25])).toBe(0.0825);
    expect(percentValue(0.0825, "decimal", [8.25])).toBeUndefined();
    expect(percentValue(0.15, "percent", [15])).toBe(15);
    expect(percentValue(15, "percent", [15])).toBeUndefined();
    const parameters: JsonSchema = {
      type: "object",
      properties: { amount: { type: "number" }, tax_rate: { type: "number", description: "Tax rate as a decimal, e.g. 0.07 for 7%" }, rate: { type: "number" } },
    };
    const call = { id: "call-1", name: "sales_tax", arguments: { amount: 1899, tax_rate: 8.25, rate: 8.25 } };
    expect(withUnitsConverted(call, parameters, "the tax on 1,899 at 8.25%", () => true).arguments).toEqual({ amount: 1899, tax_rate: 0.0825, rate: 8.25 });
  });

  it("rewrites the call's top-level numbers, and keeps the call when the converted one would not fit its schema", () => {
    const parameters: JsonSchema = {
      type: "object",
      properties: { volume_ml: { type: "number" }, duration_min: { type: "integer" }, drops: { type: "number" } },
    };
    const call = { id: "call-1", name: "iv_drip_rate", arguments: { volume_ml: 1, duration_min: 8, drops: 20 } };
    const request = "1 litre of normal saline over 8 hours, 20 drops/mL";
    expect(withUnitsConverted(call, parameters, request, () => true).arguments).toEqual({ volume_ml: 1000, duration_min: 480, drops: 20 });
    expect(withUnitsConverted(call, parameters, request, () => false)).toBe(call);
    expect(withUnitsConverted(call, parameters, "no units here", () => true)).toBe(call);
  });

  it("runs the agent's call with the user's figures in the tool's units", async () => {
    const profile = freshNotesProfile();
    try {
      const ran: Record<string, unknown>[] = [];
      const timer = defineTool({
        name: "start_timer",
        description: "Start a countdown timer.",
        input: z.object({ minutes: z.number().int().positive().max(1440), label: z.string().optional() }),
        risk: "write",
        run: (input) => {
          ran.push(input);
          return { started: true };
        },
      });
      const model = new ScriptedModel([{ toolCalls: [{ name: "start_timer", arguments: { minutes: 2, label: "bread" } }] }, "Timer started."]);
      const outcome = await new Agent({ model, profile, toolbox: new ToolBox([timer]) }).run("start a 2 hours timer for the bread").outcome;
      expect(outcome.calls[0]).toMatchObject({ status: "ok", call: { arguments: { minutes: 120, label: "bread" } } });
      expect(ran).toEqual([{ minutes: 120, label: "bread" }]);
    } finally {
      profile.close();
    }
  });
});
