import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import type { ChatModelFunctions, GbnfJsonSchema } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { PromptedToolCallChatWrapper, QwenToolResultsAsWritten } from "../../src/model/chat-format.js";
import { toLlamaHistory } from "../../src/model/history.js";
import { dialectOfTemplate, selfTestDialect } from "../../src/model/dialect-self-test.js";
import { callGrammar, convertValue, joinParts, parseQwen35Calls, renderCalls, renderQwen35 } from "../../src/model/qwen35-dialect.js";
import type { ChatMessage, ToolSpec } from "../../src/model/types.js";

/**
 * Proof by rendering: for each conversation, the text botpsy feeds the model
 * is byte-identical to the model's own chat template rendered by a Jinja
 * engine with the same messages (in the OpenAI shape templates receive).
 * Template provenance: test/fixtures/chat-templates/ and
 * scripts/fixtures/make-qwen35-fixture.py.
 */
const qwen35Template = new Template(readFileSync(join(import.meta.dirname, "../fixtures/chat-templates/qwen3.5.jinja"), "utf8"));

const tools: ToolSpec[] = [
  {
    name: "add_event",
    description: "Add an event to the calendar.",
    parameters: {
      type: "object",
      properties: {
        title: { type: "string" },
        start: { type: "string", format: "date-time" },
        minutes: { type: "integer" },
        attendees: { type: "array", items: { type: "string" } },
        all_day: { type: "boolean" },
      },
      required: ["title", "start"],
      additionalProperties: false,
    },
  },
  {
    name: "get_weather",
    description: "Weather for a city — «today» or a date.",
    parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } }, required: ["city"] },
  },
  { name: "list_alarms", description: "List the alarms.", parameters: { type: "object", properties: {} } },
];

const addEvent = { id: "call_1", name: "add_event", arguments: { title: "Lunch with Tom", start: "2026-03-06T12:00", minutes: 60, attendees: ["Tom", "Ana"], all_day: false } };
const weather = { id: "call_2", name: "get_weather", arguments: { city: "Paris", unit: "c" } };
const alarms = { id: "call_3", name: "list_alarms", arguments: {} };

const conversations: Array<{ name: string; messages: ChatMessage[]; tools?: ToolSpec[]; thinking?: boolean }> = [
  { name: "one user turn, no tools, no system", messages: [{ role: "user", content: "Hello there" }] },
  { name: "system prompt without tools", messages: [{ role: "system", content: "  You are botpsy.\n" }, { role: "user", content: "Hi" }] },
  { name: "tools and a system prompt", tools, messages: [{ role: "system", content: "You are botpsy." }, { role: "user", content: "Lunch with Tom on Friday" }] },
  { name: "tools, thinking on", tools, thinking: true, messages: [{ role: "user", content: "Weather in Paris?" }] },
  {
    name: "one call with typed arguments, its result, a final answer",
    tools,
    messages: [
      { role: "system", content: "You are botpsy." },
      { role: "user", content: "Lunch with Tom and Ana on Friday at noon" },
      { role: "assistant", content: "", toolCalls: [addEvent] },
      { role: "tool", toolCallId: "call_1", name: "add_event", content: '{"id": 7, "status": "added"}' },
      { role: "assistant", content: "Added lunch with Tom and Ana on Friday at 12:00." },
    ],
  },
  {
    name: "several calls in one turn, consecutive results merged in one user turn, then generation",
    tools,
    messages: [
      { role: "user", content: "Weather in Paris and my alarms" },
      { role: "assistant", content: "Let me check both.", toolCalls: [weather, alarms] },
      { role: "tool", toolCallId: "call_2", name: "get_weather", content: "sunny, 24 C" },
      { role: "tool", toolCallId: "call_3", name: "list_alarms", content: "[]" },
    ],
  },
  {
    name: "several user turns: thoughts before the last query are dropped, after it kept (empty and not)",
    tools,
    thinking: true,
    messages: [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", thoughts: "The user wants weather.", toolCalls: [weather] },
      { role: "tool", toolCallId: "call_2", name: "get_weather", content: "sunny" },
      { role: "assistant", content: "Sunny in Paris." },
      { role: "user", content: "And my alarms?" },
      { role: "assistant", content: "", thoughts: "", toolCalls: [alarms] },
      { role: "tool", toolCallId: "call_3", name: "list_alarms", content: "none" },
      { role: "assistant", content: "You have no alarms.", thoughts: "Nothing set.\n" },
      { role: "user", content: "Thanks!" },
    ],
  },
  {
    name: "thoughts written inside the content are split as the template splits them",
    messages: [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "<think>\npondering\n</think>\n\nHello!" },
      { role: "user", content: "<tool_response>\nnot a query\n</tool_response>" },
    ],
  },
];

/** The messages in the shape chat templates receive. */
function templateMessages(messages: ChatMessage[]): unknown[] {
  return messages.map((message) => {
    switch (message.role) {
      case "assistant":
        return {
          role: "assistant",
          content: message.content,
          ...(message.thoughts !== undefined ? { reasoning_content: message.thoughts } : {}),
          ...(message.toolCalls !== undefined
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: pythonScalars(call.arguments) },
                })),
              }
            : {}),
        };
      case "tool":
        return { role: "tool", tool_call_id: message.toolCallId, name: message.name, content: message.content };
      default:
        return { role: message.role, content: message.content };
    }
  });
}

/**
 * Python's Jinja (what the model was trained with, and what llama.cpp's
 * template engine follows) writes a boolean argument through the `string`
 * filter as True/False; the JavaScript engine writes true/false. botpsy keeps
 * Python's spelling, so the engine is handed the strings Python would produce
 * for top-level booleans (inside JSON values both write true/false).
 */
function pythonScalars(argumentsObject: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(argumentsObject).map(([name, value]) => [name, value === true ? "True" : value === false ? "False" : value === null ? "None" : value]),
  );
}

function templateTools(list: ToolSpec[] | undefined): unknown {
  return list?.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

describe("Qwen 3.5 dialect renders exactly as the Qwen 3.5 template", () => {
  for (const conversation of conversations) {
    for (const addGenerationPrompt of [true, false]) {
      it(`${conversation.name} (generation prompt ${addGenerationPrompt ? "on" : "off"})`, () => {
        const expected = qwen35Template.render({
          messages: templateMessages(conversation.messages),
          ...(conversation.tools !== undefined ? { tools: templateTools(conversation.tools) } : {}),
          add_generation_prompt: addGenerationPrompt,
          ...(conversation.thinking === true ? { enable_thinking: true } : {}),
        });
        const rendered = joinParts(
          renderQwen35(conversation.messages, {
            ...(conversation.tools !== undefined ? { tools: conversation.tools } : {}),
            addGenerationPrompt,
            thinking: conversation.thinking === true,
          }),
        );
        expect(rendered).toBe(expected);
      });
    }
  }

  it("re-renders a turn whose caller dropped the thoughts, with the thoughts it was generated with", () => {
    const withThoughts: ChatMessage[] = [
      { role: "user", content: "Weather?" },
      { role: "assistant", content: "", thoughts: "Check it.", toolCalls: [weather] },
      { role: "tool", toolCallId: "call_2", name: "get_weather", content: "sunny" },
    ];
    const dropped: ChatMessage[] = [withThoughts[0]!, { role: "assistant", content: "", toolCalls: [weather] }, withThoughts[2]!];
    const body = renderCalls([weather], "");
    const recalled = joinParts(renderQwen35(dropped, { tools, addGenerationPrompt: true, thinking: false, recalledThoughts: (text) => (text === body ? "Check it." : undefined) }));
    expect(recalled).toBe(joinParts(renderQwen35(withThoughts, { tools, addGenerationPrompt: true, thinking: false })));
  });

  it("refuses a conversation with no user query, and a system message after the first", () => {
    expect(() => renderQwen35([{ role: "system", content: "x" }], { addGenerationPrompt: true, thinking: false })).toThrow(/user message/);
    expect(() =>
      renderQwen35([{ role: "user", content: "a" }, { role: "system", content: "b" }], { addGenerationPrompt: true, thinking: false }),
    ).toThrow(/only at the beginning/);
  });
});

describe("Qwen 3.5 calls", () => {
  it("parses rendered calls back to the same names and typed arguments", () => {
    const text = renderCalls([addEvent, weather, alarms], "");
    expect(parseQwen35Calls(text, tools)).toEqual([addEvent, weather, alarms].map(({ name, arguments: args }) => ({ name, arguments: args })));
  });

  it("converts values by their schema", () => {
    expect(convertValue("42", { type: "integer" })).toBe(42);
    expect(convertValue("42", { type: "string" })).toBe("42");
    expect(convertValue("True", { type: "boolean" })).toBe(true);
    expect(convertValue('["a", "b"]', { type: "array" })).toEqual(["a", "b"]);
    expect(() => convertValue("[oops", { type: "array" })).toThrow(/not the JSON/);
  });

  it("refuses a call to a tool that was not offered", () => {
    expect(() => parseQwen35Calls("<tool_call>\n<function=rm_rf>\n</function>\n</tool_call>", tools)).toThrow(/not among the offered tools/);
  });

  it("builds a grammar naming every tool and parameter in the template's shape", () => {
    const grammar = callGrammar(tools, { parallel: true, maxStringLength: 160 });
    expect(grammar).toContain(JSON.stringify("\n<function=add_event>\n"));
    expect(grammar).toContain(JSON.stringify("<parameter=attendees>\n"));
    expect(grammar).toMatch(/^root ::= call \("\\n<tool_call>" call\)\*/);
    expect(callGrammar(tools, { parallel: false, maxStringLength: 0 })).toMatch(/^root ::= call\n/);
  });

  it("types JSON values inside array and object arguments: bounded items, properties in order, string lengths", () => {
    const pins: ToolSpec = {
      name: "place_pins",
      description: "Place pins.",
      parameters: {
        type: "object",
        properties: { spot: { type: "object", properties: { x: { type: "integer" }, note: { type: "string", maxLength: 5 } }, required: ["x"] }, tags: { type: "array", items: { enum: ["red", "blue"] }, minItems: 1, maxItems: 3 } },
        required: ["spot", "tags"],
      },
    };
    const grammar = callGrammar([pins], { parallel: false, maxStringLength: 160 });
    expect(grammar).toContain(JSON.stringify('"x": '));
    expect(grammar).toContain("json-char{0,5}");
    expect(grammar).toContain(`${JSON.stringify(JSON.stringify("red"))} | ${JSON.stringify(JSON.stringify("blue"))}`);
    expect(grammar).toMatch(/\(", " \S+\)\{0,2\}/);
  });
});

/**
 * Qwen 3 goes through node-llama-cpp's Qwen wrapper (with results written as
 * the template writes them); the proof is the same: the wrapper's context text
 * for botpsy's history equals the Qwen 3 template's rendering, thinking off.
 */
const qwen3Template = new Template(readFileSync(join(import.meta.dirname, "../fixtures/chat-templates/qwen3.jinja"), "utf8"));

function qwen3Prompt(messages: ChatMessage[], list: ToolSpec[] | undefined): string {
  const functions: ChatModelFunctions | undefined =
    list === undefined ? undefined : Object.fromEntries(list.map((tool) => [tool.name, { description: tool.description, params: tool.parameters as GbnfJsonSchema }]));
  const history = toLlamaHistory(messages, new Map(), { rawResults: true });
  const rendered = history[history.length - 1]?.type === "model" ? history : [...history, { type: "model" as const, response: [] }];
  const wrapper = new QwenToolResultsAsWritten({ variation: "3", thoughts: "discourage" });
  return wrapper.generateContextState({ chatHistory: rendered, ...(functions !== undefined ? { availableFunctions: functions } : {}) }).contextText.toString();
}

const qwen3Conversations: Array<{ name: string; messages: ChatMessage[]; tools?: ToolSpec[] }> = [
  { name: "system prompt and a question, no tools", messages: [{ role: "system", content: "You are botpsy." }, { role: "user", content: "Hi" }] },
  { name: "tools and a system prompt", tools, messages: [{ role: "system", content: "You are botpsy." }, { role: "user", content: "Weather in Paris?" }] },
  {
    name: "one call and its plain-text result",
    tools,
    messages: [
      { role: "system", content: "You are botpsy." },
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", toolCalls: [weather] },
      { role: "tool", toolCallId: "call_2", name: "get_weather", content: "sunny, 24 C" },
    ],
  },
  {
    name: "one call, a JSON result, a final answer and a new question",
    tools,
    messages: [
      { role: "system", content: "You are botpsy." },
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", toolCalls: [weather] },
      { role: "tool", toolCallId: "call_2", name: "get_weather", content: '{"sky": "sunny", "celsius": 24}' },
      { role: "assistant", content: "Sunny, 24 C." },
      { role: "user", content: "Thanks" },
    ],
  },
  {
    name: "two calls in one turn, both results",
    tools,
    messages: [
      { role: "system", content: "You are botpsy." },
      { role: "user", content: "Weather and alarms" },
      { role: "assistant", content: "", toolCalls: [weather, alarms] },
      { role: "tool", toolCallId: "call_2", name: "get_weather", content: "sunny" },
      { role: "tool", toolCallId: "call_3", name: "list_alarms", content: "[]" },
    ],
  },
];

describe("Qwen 3 format renders exactly as the Qwen 3 template", () => {
  for (const conversation of qwen3Conversations) {
    it(conversation.name, () => {
      const expected = qwen3Template.render({
        messages: templateMessages(conversation.messages),
        ...(conversation.tools !== undefined ? { tools: templateTools(conversation.tools) } : {}),
        add_generation_prompt: true,
        enable_thinking: false,
      });
      expect(qwen3Prompt(conversation.messages, conversation.tools)).toBe(expected);
    });
  }
});

/**
 * SmolLM2's template (ChatML, no tool syntax) carries botpsy's prompted
 * format: the tool list is part of the system message, a call is the
 * assistant's text, results come back in a user turn. The proof: the
 * wrapper's text equals SmolLM2's own template rendering those messages.
 * (Without a system message the template adds SmolLM's default one; botpsy's
 * agent always sends one, so every conversation here has one.)
 */
const smollm2Template = new Template(readFileSync(join(import.meta.dirname, "../fixtures/chat-templates/smollm2.jinja"), "utf8"));

describe("the prompted format renders as SmolLM2's ChatML template", () => {
  const wrapper = new PromptedToolCallChatWrapper();
  const functions: ChatModelFunctions = Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, params: tool.parameters as GbnfJsonSchema }]));
  const toolText = wrapper.generateAvailableFunctionsSystemText(functions).toString();
  const cases: Array<{ name: string; messages: ChatMessage[]; withTools: boolean; templateMessages: Array<{ role: string; content: string }> }> = [
    {
      name: "a system prompt and a question",
      withTools: false,
      messages: [{ role: "system", content: "You are botpsy." }, { role: "user", content: "Hi" }],
      templateMessages: [{ role: "system", content: "You are botpsy." }, { role: "user", content: "Hi" }],
    },
    {
      name: "tools, a call, its result, an answer and a new question",
      withTools: true,
      messages: [
        { role: "system", content: "You are botpsy." },
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: "", toolCalls: [weather] },
        { role: "tool", toolCallId: "call_2", name: "get_weather", content: '{"sky": "sunny"}' },
        { role: "assistant", content: "Sunny." },
        { role: "user", content: "Thanks" },
      ],
      templateMessages: [
        { role: "system", content: `You are botpsy.\n\n${toolText}` },
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}</tool_call>' },
        { role: "user", content: '<tool_response>{"sky": "sunny"}</tool_response>' },
        { role: "assistant", content: "Sunny." },
        { role: "user", content: "Thanks" },
      ],
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const history = toLlamaHistory(testCase.messages);
      const rendered = history[history.length - 1]?.type === "model" ? history : [...history, { type: "model" as const, response: [] }];
      const text = wrapper.generateContextState({ chatHistory: rendered, ...(testCase.withTools ? { availableFunctions: functions } : {}) }).contextText.toString();
      expect(text).toBe(smollm2Template.render({ messages: testCase.templateMessages, add_generation_prompt: true }));
    });
  }
});

describe("the dialect a template gets, and the self-test models info prints", () => {
  const read = (name: string): string => readFileSync(join(import.meta.dirname, `../fixtures/chat-templates/${name}.jinja`), "utf8");

  it("recognises each proved template", () => {
    expect(dialectOfTemplate(read("qwen3.5"))).toBe("qwen3.5");
    expect(dialectOfTemplate(read("qwen3"))).toBe("qwen3");
    expect(dialectOfTemplate(read("smollm2"))).toBe("prompted");
    expect(dialectOfTemplate(undefined)).toBe("unknown");
  });

  it("passes on the Qwen 3.5 template and names where an altered one differs", () => {
    expect(selfTestDialect(read("qwen3.5"))).toMatch(/^pass: /);
    const altered = read("qwen3.5").replace("'\\n</parameter>\\n'", "'</parameter>\\n'");
    expect(altered).not.toBe(read("qwen3.5"));
    expect(selfTestDialect(altered)).toMatch(/^fail: botpsy's prompt differs from the template's at character \d+/);
    expect(selfTestDialect(read("smollm2"))).toMatch(/^not run/);
  });
});
