import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { Profile } from "../../src/apps/profile.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { FIND_TOOLS_NAME } from "../../src/tools/find-tools.js";
import { defineTool, type Tool } from "../../src/tools/tool.js";
import { normaliseTerm, splitWords, ToolBox } from "../../src/tools/toolbox.js";
import { makeTempDir } from "../support/temp-dir.js";

function tool(name: string, description: string, parameters: Record<string, z.ZodType> = {}): Tool {
  return defineTool({ name, description, input: z.object(parameters), risk: "read", run: () => ({ ran: name }) });
}

const realistic: Tool[] = [
  tool("set_alarm", "Set an alarm to ring at a time.", { time: z.string(), label: z.string().optional() }),
  tool("list_alarms", "List the alarms that are set."),
  tool("create_event", "Create a calendar event.", { title: z.string(), date: z.string(), time: z.string() }),
  tool("list_events", "List calendar events on a day.", { date: z.string() }),
  tool("send_email", "Send an email message.", { to: z.string(), subject: z.string(), body: z.string() }),
  tool("search_email", "Search the inbox for messages.", { query: z.string() }),
  tool("get_weather", "Get the weather forecast for a place.", { city: z.string() }),
  tool("play_music", "Play a song, album or playlist.", { query: z.string() }),
  tool("set_wifi", "Turn Wi-Fi on or off.", { on: z.boolean() }),
  tool("set_brightness", "Set the screen brightness.", { level: z.number() }),
  tool("add_to_cart", "Add a product to the shopping cart.", { product: z.string(), quantity: z.number() }),
  tool("order_taxi", "Order a taxi ride to an address.", { destination: z.string() }),
  tool("convertCurrency", "Convert an amount between currencies.", { amount: z.number(), from: z.string(), to: z.string() }),
];

function distractors(count: number): Tool[] {
  const topics = ["inventory", "warehouse", "ledger", "satellite", "greenhouse", "aquarium", "telescope", "violin", "glacier", "volcano"];
  return Array.from({ length: count }, (_, index) => {
    const topic = topics[index % topics.length]!;
    return tool(`manage_${topic}_${index}`, `Manage the ${topic} record number ${index}.`, { [`${topic}_id`]: z.string() });
  });
}

describe("ToolBox", () => {
  it("gives every tool while at or under the threshold", () => {
    const box = new ToolBox(realistic, { threshold: 24 });
    expect(box.retrievalActive).toBe(false);
    expect(box.select("set an alarm").map((found) => found.name)).toEqual(realistic.map((found) => found.name));
    expect(box.get(FIND_TOOLS_NAME)).toBeUndefined();
  });

  it("above the threshold gives the relevant tools first, plus find_tools", () => {
    const box = new ToolBox([...realistic, ...distractors(287)]);
    expect(box.size).toBe(300);
    expect(box.retrievalActive).toBe(true);
    const cases: [string, string][] = [
      ["Wake me up with an alarm at 7", "set_alarm"],
      ["Email Frank the report", "send_email"],
      ["What's the weather in Porto?", "get_weather"],
      ["Put an event in my calendar on Friday", "create_event"],
      ["Turn off wifi", "set_wifi"],
      ["Convert 20 euros to dollars, from EUR to USD", "convertCurrency"],
      ["order a taxi to the airport", "order_taxi"],
    ];
    for (const [request, expected] of cases) {
      const selected = box.select(request).map((found) => found.name);
      expect(selected, request).toContain(expected);
      expect(selected.length, request).toBeLessThanOrEqual(box.limit + 1);
      expect(selected.at(-1)).toBe(FIND_TOOLS_NAME);
    }
    // The alarm tools rank above every distractor, whatever number the request holds.
    expect(box.search("Wake me up with an alarm at 7", 2).map((found) => found.name).sort()).toEqual(["list_alarms", "set_alarm"]);
  });

  it("keeps tools asked to be included and finds others by their parameter names", () => {
    const box = new ToolBox([...realistic, ...distractors(30)], { threshold: 10, limit: 3 });
    const selected = box.select("glacier_id", { include: ["play_music"] }).map((found) => found.name);
    expect(selected).toContain("play_music");
    expect(selected.some((name) => name.startsWith("manage_glacier_"))).toBe(true);
    expect(selected).toHaveLength(5);
  });

  it("find_tools searches the whole box", async () => {
    const box = new ToolBox([...realistic, ...distractors(30)], { threshold: 10 });
    const finder = box.get(FIND_TOOLS_NAME)!;
    const profile = Profile.open({ databasePath: ":memory:", apps: [], seed: "empty", home: makeTempDir("botpsy-toolbox-") });
    const result = (await profile.store.read((store) =>
      finder.run({ query: "play a song" }, { signal: new AbortController().signal, store, now: () => new Date(), timeZone: "UTC", dryRun: false }),
    )) as { tools: { name: string }[] };
    expect(result.tools[0]!.name).toBe("play_music");
    profile.close();
  });

  it("the agent gives the model the tools find_tools loaded on the next turn", async () => {
    const box = new ToolBox([...realistic, ...distractors(30)], { threshold: 10, limit: 2 });
    const profile = Profile.open({ databasePath: ":memory:", apps: [], seed: "empty", home: makeTempDir("botpsy-toolbox-") });
    const model = new ScriptedModel([
      { toolCalls: [{ name: FIND_TOOLS_NAME, arguments: { query: "shopping cart product" } }] },
      { toolCalls: [{ name: "add_to_cart", arguments: { product: "milk", quantity: 2 } }] },
      "Added.",
    ]);
    const outcome = await new Agent({ model, profile, toolbox: box }).run("I need milk at home").outcome;
    expect(outcome.stopReason).toBe("answered");
    expect(model.requests[0]!.tools!.map((spec) => spec.name)).not.toContain("add_to_cart");
    expect(model.requests[1]!.tools!.map((spec) => spec.name)).toContain("add_to_cart");
    profile.close();
  });

  it("refuses two tools of one name and bad options", () => {
    expect(() => new ToolBox([realistic[0]!, realistic[0]!])).toThrow(/already in the ToolBox/);
    expect(() => new ToolBox([tool(FIND_TOOLS_NAME, "mine")])).toThrow(/reserved/);
    expect(() => new ToolBox([], { threshold: -1 })).toThrow(/threshold -1/);
    expect(() => new ToolBox([], { limit: 0 })).toThrow(/limit 0/);
    const box = new ToolBox(realistic);
    expect(box.remove("set_alarm")).toBe(true);
    expect(box.has("set_alarm")).toBe(false);
    expect(box.remove("set_alarm")).toBe(false);
  });

  it("splits names and normalises terms", () => {
    expect(splitWords("convertCurrency set_wifi Wi-Fi")).toEqual(["convert", "Currency", "set", "wifi", "Wi", "Fi"]);
    expect(normaliseTerm("Alarms")).toBe("alarm");
    expect(normaliseTerm("batteries")).toBe("battery");
    expect(normaliseTerm("the")).toBeNull();
    expect(normaliseTerm("address")).toBe("address");
  });
});
