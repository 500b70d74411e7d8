import { describe, expect, it } from "vitest";
import { z } from "zod";
import { routeToolChoice } from "../../src/tools/router.js";
import { defineTool, toolSpec, type Tool } from "../../src/tools/tool.js";
import { buildToolIndex, normaliseTerm, parameterText, TOOL_INDEX_TOKENIZER } from "../../src/tools/tool-index.js";
import { ToolBox } from "../../src/tools/toolbox.js";

function tool(name: string, description: string, parameters: Record<string, z.ZodType> = {}): Tool {
  return defineTool({ name, description, input: z.object(parameters), risk: "read", run: () => ({ ran: name }) });
}

// Words short enough that neither search reaches past exact terms: whatever the two find, they find by the same tokens.
const tools: Tool[] = [
  tool("buyBatteries", "Buy AA or AAA cells.", { pack: z.string() }),
  tool("book_car", "Book a hire car.", { day: z.string() }),
  tool("play_tv", "Put a show on the TV."),
  tool("get_map", "Get the map of a city.", { zoom: z.number() }),
];

describe("the tool index", () => {
  it("turns names, plurals, stop words and numbers into terms one way", () => {
    expect(TOOL_INDEX_TOKENIZER.tokenize("buyBatteries book_car")).toEqual(["buy", "Batteries", "book", "car"]);
    expect(["buy", "Batteries", "the", "7", "cars", "glass"].map(TOOL_INDEX_TOKENIZER.processTerm)).toEqual(["buy", "battery", null, null, "car", "glass"]);
    expect(TOOL_INDEX_TOKENIZER.processTerm).toBe(normaliseTerm);
  });

  it("indexes parameter names with their descriptions", () => {
    expect(parameterText({ city: { description: "where" }, day: {} })).toBe("city where day ");
    expect(parameterText(undefined)).toBe("");
    const index = buildToolIndex([{ id: "x", name: "x", description: "", parameters: parameterText({ city: {} }) }]);
    expect(index.search("cities").map((result) => result.id)).toEqual(["x"]);
  });

  it("the router and the ToolBox read a request into the same terms", () => {
    const box = new ToolBox(tools, { threshold: 0 });
    const specs = tools.map(toolSpec);
    const requests = ["buy batteries", "Batteries?", "book a car for the day", "the map", "put the TV on", "zoom", "is it 7", "the of a", "cars and maps"];
    for (const request of requests) {
      const fromBox = box.rank(request, tools.length).map((ranked) => ranked.tool.name);
      const fromRouter = routeToolChoice(request, specs).ranked;
      expect(new Set(fromRouter), request).toEqual(new Set(fromBox));
    }
    // Stop words and numbers alone match nothing in either.
    expect(box.rank("is it 7")).toEqual([]);
    expect(routeToolChoice("the of a", specs).bestTool).toBeUndefined();
    // A camelCase name and a plural both reach the tool through the shared tokenizer.
    expect(box.search("battery").map((found) => found.name)).toEqual(["buyBatteries"]);
    expect(routeToolChoice("battery", specs).bestTool).toBe("buyBatteries");
  });
});
