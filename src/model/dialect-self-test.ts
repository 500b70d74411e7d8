import { createHash } from "node:crypto";
import { Template } from "@huggingface/jinja";
import type { ChatFormatName } from "./chat-format.js";
import { joinParts, renderQwen35 } from "./qwen35-dialect.js";
import type { ChatMessage, ToolSpec } from "./types.js";

/** sha256 of the Qwen 3.5 template botpsy's dialect is proved against (test/fixtures/chat-templates/qwen3.5.jinja). */
export const QWEN35_TEMPLATE_SHA256 = "7f0e529032c25183bcd66c7f238da2d377f43be754a94e2725a58c4e16d2ed67";

export function templateSha256(template: string): string {
  return createHash("sha256").update(template).digest("hex");
}

/**
 * The format botpsy speaks to a model with this template: Qwen 3.5's own
 * dialect for its template (or one writing calls the same way), otherwise what
 * node-llama-cpp's resolution decides at load time.
 */
export function dialectOfTemplate(template: string | undefined): ChatFormatName | "unknown" {
  if (template === undefined || template === "") return "unknown";
  if (templateSha256(template) === QWEN35_TEMPLATE_SHA256) return "qwen3.5";
  if (template.includes("<function=") && template.includes("<parameter=") && template.includes("<tool_call>")) return "qwen3.5";
  if (template.includes("<tool_call>") && template.includes("<think>")) return "qwen3";
  // ChatML with no tool syntax of its own: botpsy's prompted call format.
  if (template.includes("<|im_start|>") && !template.includes("tool")) return "prompted";
  return "unknown";
}

const SELF_TEST_TOOLS: ToolSpec[] = [
  {
    name: "add_event",
    description: "Add an event to the calendar.",
    parameters: { type: "object", properties: { title: { type: "string" }, minutes: { type: "integer" }, guests: { type: "array", items: { type: "string" } } }, required: ["title"] },
  },
];

const SELF_TEST_MESSAGES: ChatMessage[] = [
  { role: "system", content: "You are botpsy." },
  { role: "user", content: "Lunch with Tom for an hour" },
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "add_event", arguments: { title: "Lunch with Tom", minutes: 60, guests: ["Tom"] } }] },
  { role: "tool", toolCallId: "call_1", name: "add_event", content: '{"added": true}' },
  { role: "assistant", content: "Added." },
  { role: "user", content: "Thanks" },
];

/**
 * One line: whether botpsy's rendering of a fixed conversation (system prompt,
 * tools, a typed call, its result, an answer, a new question) is byte for byte
 * what the file's own template renders.
 */
export function selfTestDialect(template: string | undefined): string {
  const dialect = dialectOfTemplate(template);
  if (dialect !== "qwen3.5" || template === undefined) {
    return "not run: botpsy renders this template through node-llama-cpp's chat wrapper, not its own dialect";
  }
  let expected: string;
  try {
    expected = new Template(template).render({
      messages: SELF_TEST_MESSAGES.map((message) =>
        message.role === "assistant"
          ? {
              role: "assistant",
              content: message.content,
              ...(message.toolCalls !== undefined
                ? { tool_calls: message.toolCalls.map((call) => ({ type: "function", function: { name: call.name, arguments: call.arguments } })) }
                : {}),
            }
          : message.role === "tool"
            ? { role: "tool", content: message.content }
            : message,
      ),
      tools: SELF_TEST_TOOLS.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
      add_generation_prompt: true,
    });
  } catch (error) {
    return `fail: the template does not render (${error instanceof Error ? error.message : String(error)})`;
  }
  const rendered = joinParts(renderQwen35(SELF_TEST_MESSAGES, { tools: SELF_TEST_TOOLS, addGenerationPrompt: true, thinking: false }));
  if (rendered === expected) return `pass: botpsy's prompt equals the template's rendering (${rendered.length} characters)`;
  let index = 0;
  while (index < rendered.length && rendered[index] === expected[index]) index++;
  return `fail: botpsy's prompt differs from the template's at character ${index}: ${JSON.stringify(rendered.slice(index, index + 30))} vs ${JSON.stringify(expected.slice(index, index + 30))}`;
}
