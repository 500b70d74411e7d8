import type { Command } from "commander";
import { CALL_BIAS_OPTION_DESCRIPTION, LORA_OPTION_DESCRIPTION, parseCallBias, parseForcedCallFloor, FORCED_CALL_FLOOR_OPTION_DESCRIPTION } from "../../model/shipped-adapter.js";
import { InvalidInputError } from "../../errors.js";
import { loadLlamaModel } from "../../model/resolve.js";
import type { ChatMessage, Thinking } from "../../model/types.js";

interface GenerateCommandOptions {
  model?: string;
  lora?: string;
  callBias?: string;
  forcedCallFloor?: string;
  system?: string;
  maxTokens?: string;
  temperature?: string;
  seed?: string;
  thinking?: string;
  threads?: string;
  contextSize?: string;
  cpu?: boolean;
  json?: boolean;
}

/** `botpsy generate "<prompt>"`: plain generation on the local model, streamed. */
export function registerGenerateCommand(program: Command): void {
  program
    .command("generate <prompt>")
    .description("Generate a reply to a prompt with the local model (streams text; --json prints the result with usage and timings).")
    .option("-m, --model <model>", "catalog id, GGUF path or hf:owner/repo/file.gguf (default: the best model present)")
    .option("--lora <adapter>", LORA_OPTION_DESCRIPTION)
    .option("--call-bias <logit>", CALL_BIAS_OPTION_DESCRIPTION)
    .option("--forced-call-floor <logit>", FORCED_CALL_FLOOR_OPTION_DESCRIPTION)
    .option("--system <text>", "a system prompt")
    .option("--max-tokens <n>", "most tokens to generate", "512")
    .option("--temperature <t>", "sampling temperature (0 = greedy)", "0")
    .option("--seed <n>", "sampling seed", "1")
    .option("--thinking <mode>", "off, on, or a token budget for thoughts", "off")
    .option("--threads <n>", "CPU threads")
    .option("--context-size <n>", "context size in tokens", "4096")
    .option("--cpu", "run on the CPU even when a GPU is present")
    .option("--json", "print the final result as JSON instead of streaming")
    .action(async (prompt: string, options: GenerateCommandOptions) => {
      const maxTokens = parseInteger(options.maxTokens ?? "512", "--max-tokens", 1);
      const temperature = parseNumber(options.temperature ?? "0", "--temperature");
      const seed = parseInteger(options.seed ?? "1", "--seed", 0);
      const thinking = parseThinking(options.thinking ?? "off");
      const contextSize = parseInteger(options.contextSize ?? "4096", "--context-size", 64);
      const threads = options.threads !== undefined ? parseInteger(options.threads, "--threads", 1) : undefined;
      const model = await loadLlamaModel({
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.lora !== undefined ? { lora: options.lora } : {}),
        ...(options.callBias !== undefined ? { callBias: parseCallBias(options.callBias) } : {}),
        ...(options.forcedCallFloor !== undefined ? { forcedCallFloor: parseForcedCallFloor(options.forcedCallFloor) } : {}),
        progress: true,
        contextSize,
        maxConversations: 1,
        ...(threads !== undefined ? { threads } : {}),
        ...(options.cpu === true ? { gpu: false } : {}),
      });
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      process.once("SIGINT", stop);
      try {
        const messages: ChatMessage[] = [
          ...(options.system !== undefined ? [{ role: "system" as const, content: options.system }] : []),
          { role: "user", content: prompt },
        ];
        const generation = model.generate({ messages, maxTokens, temperature, seed, thinking, signal: controller.signal });
        if (options.json === true) {
          const result = await generation.result;
          process.stdout.write(`${JSON.stringify({ model: model.id, ...result }, null, 2)}\n`);
          return;
        }
        let inThought = false;
        for await (const event of generation) {
          if (event.type === "thought-delta") {
            if (!inThought) process.stderr.write("[thinking] ");
            inThought = true;
            process.stderr.write(event.text);
          } else if (event.type === "text-delta") {
            if (inThought) process.stderr.write("\n");
            inThought = false;
            process.stdout.write(event.text);
          }
        }
        const result = await generation.result;
        process.stdout.write("\n");
        process.stderr.write(
          `[${model.id}: ${result.usage.promptTokens} prompt + ${result.usage.outputTokens} output tokens, ` +
            `first token ${result.timings.timeToFirstTokenMs.toFixed(0)} ms, ${result.timings.outputTokensPerSecond.toFixed(1)} tokens/s, stop: ${result.stopReason}]\n`,
        );
      } finally {
        process.off("SIGINT", stop);
        await model.dispose();
      }
    });
}

function parseInteger(value: string, option: string, minimum: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum) throw new InvalidInputError(`${option} must be a whole number of at least ${minimum}, not "${value}".`);
  return parsed;
}

function parseNumber(value: string, option: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new InvalidInputError(`${option} must be a number of at least 0, not "${value}".`);
  return parsed;
}

export function parseThinking(value: string): Thinking {
  if (value === "off" || value === "on") return value;
  const budget = Number(value);
  if (Number.isInteger(budget) && budget > 0) return { budget };
  throw new InvalidInputError(`--thinking must be off, on, or a positive token budget, not "${value}".`);
}
