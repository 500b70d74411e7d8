import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { Profile } from "../../src/apps/profile.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool, type Tool } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { openNotesProfile } from "./fixtures/notes-app.js";

function tool(name: string, description: string): Tool {
  return defineTool({ name, description, input: z.object({ text: z.string().optional() }), risk: "read", run: () => ({ ran: name }) });
}

const tools = [
  tool("get_weather", "Weather forecast for a place and a day."),
  tool("send_email", "Send an email to a contact."),
  tool("read_email", "Read one email in full."),
  tool("search_email", "Search emails by sender, subject or text."),
  tool("list_alarms", "List your alarms."),
];

describe("the first turn's tool choice", () => {
  let profile: Profile;
  beforeEach(() => {
    profile = openNotesProfile();
  });
  afterEach(() => profile.close());

  it("names the dominant tool on the first turn and leaves later turns free", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "get_weather", arguments: {} }] }, "Sunny."]);
    await new Agent({ model, profile, toolbox: new ToolBox(tools) }).run("What's the weather forecast?").outcome;
    expect(model.requests[0]!.toolChoice).toEqual({ name: "get_weather" });
    expect(model.requests[1]!.toolChoice).toBeUndefined();
    // Naming the tool does not hide the others from the prompt.
    expect(model.requests[0]!.tools).toHaveLength(tools.length);
  });

  it("asks only for some call when candidates are close, and narrows them with forcedTurnTools", async () => {
    const wide = new ScriptedModel(["ok then"]);
    await new Agent({ model: wide, profile, toolbox: new ToolBox(tools) }).run("email Frank").outcome;
    expect(wide.requests[0]!.toolChoice).toBe("required");
    expect(wide.requests[0]!.tools).toHaveLength(tools.length);

    const narrow = new ScriptedModel(["ok then"]);
    await new Agent({ model: narrow, profile, toolbox: new ToolBox(tools), forcedTurnTools: 2 }).run("email Frank").outcome;
    expect(narrow.requests[0]!.toolChoice).toBe("required");
    // The prompt still documents every tool (its cached context stays valid); only the call is narrowed.
    expect(narrow.requests[0]!.tools).toHaveLength(tools.length);
    const callable = narrow.requests[0]!.callableTools!.map((spec) => spec.name);
    expect(callable).toHaveLength(2);
    for (const name of callable) expect(name).toMatch(/email/);
  });

  it("keeps the choice free for a request no tool serves, and honours an explicit choice", async () => {
    const free = new ScriptedModel(["I cannot tell jokes with these apps."]);
    const outcome = await new Agent({ model: free, profile, toolbox: new ToolBox(tools), forcedTurnTools: 2 }).run("tell me a joke about penguins").outcome;
    expect(free.requests[0]!.toolChoice).toBe("auto");
    expect(free.requests[0]!.tools).toHaveLength(tools.length);
    expect(outcome.stopReason).toBe("abstained");

    const explicit = new ScriptedModel([{ toolCalls: [{ name: "list_alarms", arguments: {} }] }, "Two alarms."]);
    await new Agent({ model: explicit, profile, toolbox: new ToolBox(tools), firstStepToolChoice: "required" }).run("What is the weather?").outcome;
    expect(explicit.requests[0]!.toolChoice).toBe("required");
  });

  it("rejects a forcedTurnTools that is not a whole number of tools", () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, profile, toolbox: new ToolBox(tools), forcedTurnTools: 0 })).toThrow(/forcedTurnTools 0 is not usable/);
    expect(() => new Agent({ model, profile, toolbox: new ToolBox(tools), forcedTurnTools: 1.5 })).toThrow(/whole number/);
    expect(() => new Agent({ model, profile, toolbox: new ToolBox(tools), forcedTurnTools: false })).not.toThrow();
  });
});
