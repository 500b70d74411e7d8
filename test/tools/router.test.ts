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
    // The only tool that matched: named, not just required.
    expect(decision.toolChoice).toEqual({ name: "set_alarm" });
    expect(decision.bestTool).toBe("set_alarm");
    expect(decision.matchedTerms).toBeGreaterThanOrEqual(1);
  });

  it("routes on coverage: one word that is most of the request", () => {
    expect(routeToolChoice("weather?", tools).toolChoice).toEqual({ name: "get_weather" });
    expect(routeToolChoice("weather?", tools, { namedToolDominance: false }).toolChoice).toBe("required");
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

describe("routeToolChoice naming the tool", () => {
  const mail: ToolSpec[] = [
    ...tools,
    {
      name: "send_email",
      description: "Send an email to a contact.",
      parameters: { type: "object", properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } }, required: ["to"] },
    },
    {
      name: "read_email",
      description: "Read one email in full.",
      parameters: { type: "object", properties: { email_id: { type: "string" } }, required: ["email_id"] },
    },
  ];

  it("names the best tool when it clearly dominates the runner-up", () => {
    // One word of four points at the tool: clear only when a dominant tool's name counts.
    expect(routeToolChoice("What is the weather in Lisbon tomorrow?", mail).toolChoice).toBe("auto");
    const decision = routeToolChoice("What is the weather in Lisbon tomorrow?", mail, { clearOnDominantName: true });
    expect(decision.bestTool).toBe("get_weather");
    expect(decision.toolChoice).toEqual({ name: "get_weather" });
    expect(decision.ranked[0]).toBe("get_weather");
  });

  it("forces only some call when two tools are close", () => {
    const decision = routeToolChoice("email Frank", mail);
    expect(decision.runnerUp).toBeDefined();
    expect(decision.toolChoice).toBe("required");
    expect(["send_email", "read_email"]).toContain(decision.bestTool);
  });

  it("without dominance, one word of a tool's name in a longer request leaves the choice free", () => {
    expect(routeToolChoice("What is the weather in Lisbon tomorrow?", mail, { namedToolDominance: false, clearOnDominantName: true }).toolChoice).toBe("auto");
  });

  it("names nothing when the choice is left free", () => {
    expect(routeToolChoice("tell me a joke about penguins", mail).toolChoice).toBe("auto");
  });
});

describe("routeToolChoice options", () => {
  it("rejects a dominance ratio below 1 with a clear error", () => {
    expect(() => routeToolChoice("weather?", tools, { namedToolDominance: 0.5 })).toThrow(/namedToolDominance 0.5 is not usable/);
    expect(() => routeToolChoice("weather?", tools, { namedToolDominance: Number.NaN })).toThrow(/ratio of 1 or more/);
  });
});
