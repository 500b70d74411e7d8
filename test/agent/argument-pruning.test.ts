import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { pruneToolArguments, pruneToolSpecs, requestShape } from "../../src/agent/argument-pruning.js";
import type { Profile } from "../../src/apps/profile.js";
import type { GenerateRequest, ToolSpec } from "../../src/model/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool, ToolError } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { openNotesProfile } from "./fixtures/notes-app.js";

const setAlarm: ToolSpec = {
  name: "set_alarm",
  description: "Set an alarm for a time of day, once or repeating on some days.",
  parameters: {
    type: "object",
    properties: {
      time: { type: "string", description: 'Time of day. Example: "7 am" or "06:30"' },
      label: { type: "string", description: 'A name for the alarm. Example: "Gym"' },
      repeat: { type: "string", description: 'Days to repeat: "daily", "weekdays", "weekends", "never" or "mon, wed". Example: "weekdays"' },
    },
    required: ["time"],
  },
};

const changeAlarm: ToolSpec = {
  name: "change_alarm",
  description: "Change an alarm: its time, label, repeat days, or turn it on or off.",
  parameters: {
    type: "object",
    properties: {
      alarm: { type: "string", description: 'The alarm: its id, label or time. Example: "alarm-1"' },
      time: { type: "string", description: 'New time. Example: "7:30 am"' },
      label: { type: "string", description: 'New label. Example: "Work"' },
      enabled: { type: "boolean", description: "true to turn it on, false to turn it off" },
    },
    required: ["alarm"],
  },
};

const listEmails: ToolSpec = {
  name: "list_emails",
  description: "List emails in a folder (inbox by default), newest first.",
  parameters: {
    type: "object",
    properties: {
      folder: { type: "string", enum: ["inbox", "sent", "archive"] },
      unread_only: { type: "boolean", description: "Only unread emails." },
      limit: { type: "integer", description: "How many (default 10)." },
    },
  },
};

function parameterNames(spec: ToolSpec): string[] {
  return Object.keys(spec.parameters.properties as Record<string, unknown>);
}

describe("pruneToolArguments", () => {
  it("removes optional parameters the request has no word for and keeps required ones", () => {
    expect(parameterNames(pruneToolArguments(setAlarm, "Set an alarm for 7"))).toEqual(["time"]);
    // The tool's own words ("alarm") do not keep a parameter whose description mentions them.
    expect(parameterNames(pruneToolArguments(setAlarm, "alarm please"))).toEqual(["time"]);
  });

  it("keeps an optional parameter when a word of its name, description, examples or choices is in the request", () => {
    expect(parameterNames(pruneToolArguments(setAlarm, "wake me up every weekday at 6"))).toEqual(["time", "repeat"]);
    expect(parameterNames(pruneToolArguments(setAlarm, "alarm at 6 labelled gym"))).toEqual(["time", "label"]);
    expect(parameterNames(pruneToolArguments(listEmails, "show my unread emails"))).toEqual(["unread_only"]);
    expect(parameterNames(pruneToolArguments(listEmails, "what did I send, in the sent folder"))).toEqual(["folder"]);
  });

  it("does not keep a parameter for the words naming the tool's other parameters", () => {
    const circleArea: ToolSpec = {
      name: "circle_area",
      description: "The area of a circle.",
      parameters: {
        type: "object",
        properties: {
          radius: { type: "number", description: "The radius of the circle." },
          units: { type: "string", description: "The units the radius is measured in. Default is meters." },
          radius_unit: { type: "string", description: "What the radius is given in, if not the units." },
        },
        required: ["radius"],
      },
    };
    // "radius" names another parameter: it says what `units` goes with, not that the request asks for units.
    expect(parameterNames(pruneToolArguments(circleArea, "What is the area of a circle with a radius of ten?"))).toEqual(["radius", "radius_unit"]);
    // A word of its own description that is no other parameter's name still keeps it.
    expect(parameterNames(pruneToolArguments(circleArea, "the area of a circle with a radius of 10 meters"))).toEqual(["radius", "units", "radius_unit"]);
    // A word of its own name keeps it, even when another parameter's name has it too.
    expect(parameterNames(pruneToolArguments(circleArea, "the area for a radius of 4"))).toEqual(["radius", "radius_unit"]);
  });

  it("keeps a parameter that takes a time or a number the request carries without naming it", () => {
    expect(parameterNames(pruneToolArguments(changeAlarm, "move my gym alarm to 8"))).toEqual(["alarm", "time"]);
    expect(parameterNames(pruneToolArguments(changeAlarm, "change the alarm"))).toEqual(["alarm"]);
    expect(parameterNames(pruneToolArguments(changeAlarm, "turn off the 7 am alarm"))).toEqual(["alarm", "time", "enabled"]);
  });

  it("returns the same spec when nothing is removed, and never changes the input", () => {
    const noOptional: ToolSpec = { name: "get_device_status", description: "Show the settings.", parameters: { type: "object", properties: {} } };
    expect(pruneToolArguments(noOptional, "status")).toBe(noOptional);
    const before = JSON.stringify(setAlarm);
    const pruned = pruneToolArguments(setAlarm, "Set an alarm for 7");
    expect(JSON.stringify(setAlarm)).toBe(before);
    expect(pruned.parameters.required).toEqual(["time"]);
  });

  it("reads the request once for a list of specs", () => {
    const pruned = pruneToolSpecs([setAlarm, listEmails], "unread emails");
    expect(pruned.map(parameterNames)).toEqual([["time"], ["unread_only"]]);
  });

  it("tells moments and numbers apart from words", () => {
    expect(requestShape("lunch on Friday")).toMatchObject({ hasMoment: true, hasNumber: false });
    expect(requestShape("buy 3 apples")).toMatchObject({ hasMoment: false, hasNumber: true });
    expect(requestShape("meet at 5:30")).toMatchObject({ hasMoment: true, hasNumber: true });
    expect(requestShape("tell me a joke")).toMatchObject({ hasMoment: false, hasNumber: false });
  });
});

describe("argument pruning in the agent", () => {
  let profile: Profile;
  beforeEach(() => {
    profile = openNotesProfile();
  });
  afterEach(() => profile.close());

  const alarmTool = defineTool({
    name: "set_alarm",
    description: "Set an alarm for a time of day.",
    input: z.object({
      time: z.string().describe('Time of day. Example: "7 am"'),
      label: z.string().optional().describe('A name for the alarm. Example: "Gym"'),
    }),
    risk: "write",
    run: ({ time, label }) => (label === undefined ? { id: "alarm-1", time } : { id: "alarm-1", time, label }),
  });

  it("by default prunes what the first turn may call, and shows every turn the whole specs", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7" } }] }, "Alarm set for 7."]);
    const agent = new Agent({ model, profile, toolbox: new ToolBox([alarmTool]) });
    const outcome = await agent.run("Set an alarm for 7").outcome;
    expect(outcome.stopReason).toBe("answered");
    expect(parameterNames(model.requests[0]!.callableTools![0]!)).toEqual(["time"]);
    expect(model.requests.map((request) => parameterNames(request.tools![0]!))).toEqual([["time", "label"], ["time", "label"]]);
    expect(model.requests[1]!.callableTools).toBeUndefined();

    // scope "prompt": the first turn's prompt documents the pruned specs.
    const inPrompt = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7" } }] }, "Alarm set for 7."]);
    await new Agent({ model: inPrompt, profile, toolbox: new ToolBox([alarmTool]), argumentPruning: { scope: "prompt" } }).run("Set an alarm for 7").outcome;
    expect(inPrompt.requests.map((request) => parameterNames(request.tools![0]!))).toEqual([["time"], ["time", "label"]]);
  });

  it("prunes every turn with turns: all, and not at all when switched off", async () => {
    const callable = (requests: readonly GenerateRequest[]) => requests.map((request) => parameterNames((request.callableTools ?? request.tools)![0]!));
    const everyTurn = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7" } }] }, "Done."]);
    await new Agent({ model: everyTurn, profile, toolbox: new ToolBox([alarmTool]), argumentPruning: { turns: "all" } }).run("Set an alarm for 7").outcome;
    expect(callable(everyTurn.requests)).toEqual([["time"], ["time"]]);

    // On later turns the results count as words too: a result (or an error) that names a parameter brings it back.
    const named = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7", label: "x" } }] }, "Done."]);
    await new Agent({ model: named, profile, toolbox: new ToolBox([alarmTool]), argumentPruning: { turns: "all" } }).run("Set an alarm for 7").outcome;
    expect(callable(named.requests)).toEqual([["time"], ["time", "label"]]);

    const off = new ScriptedModel(["Done."]);
    await new Agent({ model: off, profile, toolbox: new ToolBox([alarmTool]), argumentPruning: false }).run("Set an alarm for 7").outcome;
    expect(callable(off.requests)).toEqual([["time", "label"]]);
  });

  it("with turns: recovery (the default), also prunes a turn held to the failed tool again, and leaves free turns whole", async () => {
    const strictAlarm = defineTool({
      name: "set_alarm",
      description: "Set an alarm for a time of day.",
      input: z.object({
        time: z.string().describe('Time of day. Example: "7 am"'),
        repeat: z.string().optional().describe('Days to repeat: "daily" or "weekdays"'),
      }),
      risk: "write",
      run: ({ time }) => {
        if (!/^\d{1,2}(:\d{2})?$/.test(time)) throw new ToolError("invalid_time", `time="${time}" is not a time of day: give one such as 07:00.`);
        return { id: "alarm-1", time };
      },
    });
    const callable = (requests: readonly GenerateRequest[]) => requests.map((request) => parameterNames((request.callableTools ?? request.tools)![0]!));
    const script = () => [{ toolCalls: [{ name: "set_alarm", arguments: { time: "2026-12-01" } }] }, { toolCalls: [{ name: "set_alarm", arguments: { time: "07:00" } }] }, "Alarm set for 7."];

    const held = new ScriptedModel(script());
    const outcome = await new Agent({ model: held, profile, toolbox: new ToolBox([strictAlarm]), argumentPruning: { turns: "recovery" } }).run("Set an alarm for 7").outcome;
    expect(outcome.calls.map((record) => record.status)).toEqual(["error", "ok"]);
    expect(held.requests[1]!.toolChoice).toEqual({ name: "set_alarm" });
    // The router forced the first turn (a floor may release it); the loop held the recovery turn (no floor may).
    expect(held.requests.map((request) => request.routedChoice === true)).toEqual([true, false, false]);
    // The recovery turn may write only what the request and the error have words for; the free last turn sees the whole tool.
    expect(callable(held.requests)).toEqual([["time"], ["time"], ["time", "repeat"]]);

    // The default.
    const byDefault = new ScriptedModel(script());
    await new Agent({ model: byDefault, profile, toolbox: new ToolBox([strictAlarm]) }).run("Set an alarm for 7").outcome;
    expect(callable(byDefault.requests)).toEqual([["time"], ["time"], ["time", "repeat"]]);

    const firstOnly = new ScriptedModel(script());
    await new Agent({ model: firstOnly, profile, toolbox: new ToolBox([strictAlarm]), argumentPruning: { turns: "first" } }).run("Set an alarm for 7").outcome;
    expect(callable(firstOnly.requests)).toEqual([["time"], ["time", "repeat"], ["time", "repeat"]]);
  });

  it("still validates against the whole input schema: a pruned parameter the model writes anyway is accepted", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7", label: "Gym" } }] }, "Alarm set."]);
    const outcome = await new Agent({ model, profile, toolbox: new ToolBox([alarmTool]) }).run("Set an alarm for 7, call it Gym").outcome;
    expect(outcome.calls[0]).toMatchObject({ status: "ok", result: { id: "alarm-1", time: "7", label: "Gym" } });
  });
});
