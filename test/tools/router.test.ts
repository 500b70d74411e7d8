import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/model/types.js";
import { routeToolChoice } from "../../src/tools/router.js";

const tools: ToolSpec[] = [
  {
    name: "set_alarm",
    description: "Set an alarm at a time of day, optionally repeating on some days.",
    parameters: { type: "object", properties: { time: { type: "string", description: "time of day, e.g. 07:00" } }, required: ["time"] },
  },
  {
    name: "get_weather",
    description: "Weather forecast for a place and a day.",
    parameters: { type: "object", properties: { place: { type: "string" }, date: { type: "string" } }, required: ["place"] },
  },
];

describe("routeToolChoice", () => {
  it("forces a call when the request's words name a tool", () => {
    const decision = routeToolChoice("Set an alarm for 7", tools);
    expect(decision.toolChoice).toBe("required");
    expect(decision.bestTool).toBe("set_alarm");
    expect(decision.matchedTerms).toBeGreaterThanOrEqual(1);
  });

  it("routes on coverage: one word that is most of the request", () => {
    expect(routeToolChoice("weather?", tools).toolChoice).toBe("required");
  });

  it("leaves the choice free when nothing in the request points at a tool", () => {
    const decision = routeToolChoice("tell me a joke about penguins", tools);
    expect(decision.toolChoice).toBe("auto");
  });

  it("leaves the choice free with no tools or an empty request", () => {
    expect(routeToolChoice("set an alarm", []).toolChoice).toBe("auto");
    expect(routeToolChoice("   ", tools).toolChoice).toBe("auto");
  });
});
