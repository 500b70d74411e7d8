import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { Agent } from "../../agent/agent.js";
import type { AgentEvent, AgentOutcome, AgentRun, AgentStopReason, ApprovalDecision, ApprovalRequest } from "../../agent/types.js";
import { Profile } from "../../apps/profile.js";
import { InvalidInputError } from "../../errors.js";
import { createChatModel } from "../../model/resolve.js";
import type { ChatModel } from "../../model/types.js";
import { createSafetyLayer, type SafetyLayer } from "../../policy/safety.js";

export interface AgentCommandOptions {
  model?: string;
  lora?: string;
  maxSteps?: string;
  threads?: string;
  session?: string;
  yes?: boolean;
  json?: boolean;
  requireTool?: boolean;
}

/** Exit codes: 0 only when the task finished. */
export const EXIT_CODES: Record<AgentStopReason, number> = {
  answered: 0,
  abstained: 1,
  step_limit: 1,
  error: 2,
  awaiting_approval: 3,
  aborted: 130,
};

/** Everything a command needs to run requests: the profile, the model, the agent behind the safety layer. */
export interface AgentSetup {
  profile: Profile;
  model: ChatModel;
  safety: SafetyLayer;
  agent: Agent;
  close(): Promise<void>;
}

export function parseMaxSteps(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const steps = Number(value);
  if (!Number.isInteger(steps) || steps < 1) throw new InvalidInputError(`--max-steps must be a whole number of at least 1, not "${value}".`);
  return steps;
}

export function parseThreads(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const threads = Number(value);
  if (!Number.isInteger(threads) || threads < 1) throw new InvalidInputError(`--threads must be a whole number of at least 1, not "${value}".`);
  return threads;
}

export async function setUpAgent(options: AgentCommandOptions & { quiet?: boolean }): Promise<AgentSetup> {
  const maxSteps = parseMaxSteps(options.maxSteps);
  const threads = parseThreads(options.threads);
  const profile = Profile.open();
  let model: ChatModel;
  try {
    model = await createChatModel({ model: options.model, progress: !options.quiet, ...(threads !== undefined ? { threads } : {}), ...(options.lora !== undefined ? { lora: options.lora } : {}) });
  } catch (error) {
    profile.close();
    throw error;
  }
  const safety = createSafetyLayer(profile);
  const agent = new Agent({
    model,
    profile,
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(options.requireTool ? { firstStepToolChoice: "required" as const } : {}),
    ...safety.agentOptions,
  });
  return {
    profile,
    model,
    safety,
    agent,
    async close() {
      await model.dispose();
      profile.close();
    },
  };
}

/** Prints a run as it happens: each call and its result, the answer's words as they come. */
export class RunPrinter {
  private readonly write: (text: string) => void;
  private midLine = false;

  constructor(write: (text: string) => void = (text) => process.stdout.write(text)) {
    this.write = write;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "text-delta":
        this.write(event.text);
        this.midLine = !event.text.endsWith("\n");
        return;
      case "tool-call":
        this.endLine();
        this.write(`→ ${event.call.name} ${JSON.stringify(event.call.arguments)}${event.risk ? ` [${event.risk}]` : ""}\n`);
        return;
      case "tool-result":
        this.write(`  ✓ ${event.call.name}: ${shorten(JSON.stringify(event.result ?? null), 300)} (${event.durationMs} ms)\n`);
        return;
      case "tool-error":
        this.write(`  ✗ ${event.call.name}: ${event.error.code}: ${event.error.message}\n`);
        return;
      case "approval-request":
        this.endLine();
        this.write(`? ${event.request.call.name} needs approval (${event.request.reason})\n  ${event.request.preview}\n`);
        return;
      case "done":
        this.endLine();
        return;
      default:
        return;
    }
  }

  outcome(outcome: AgentOutcome): void {
    this.endLine();
    if (outcome.stopReason === "answered" || outcome.stopReason === "abstained") {
      if (outcome.answer === "") this.write(`(the model gave no answer)\n`);
    }
    if (outcome.stopReason === "abstained") this.write(`${abstentionNote(outcome)}\n`);
    if (outcome.error) this.write(`botpsy: ${outcome.error.message} [${outcome.error.code}]\n`);
    if (outcome.stopReason === "awaiting_approval") {
      this.write(`Waiting for approval. Run id: ${outcome.runId}\n`);
    }
  }

  private endLine(): void {
    if (this.midLine) this.write("\n");
    this.midLine = false;
  }
}

/** Why an abstained run did nothing: no call at all, or calls that all failed or were refused. */
export function abstentionNote(outcome: AgentOutcome): string {
  const calls = outcome.calls.length;
  if (calls === 0) return "(no tool was used for this request)";
  return `(no tool call succeeded: ${calls === 1 ? "the call" : `all ${calls} calls`} failed or ${calls === 1 ? "was" : "were"} refused)`;
}

/**
 * Decide a paused run's requests: `--yes` approves them all (calls the rules
 * deny never reach this point); otherwise the user is asked `[y/N]`, and
 * without a terminal to ask on there is no decision.
 */
export async function decideApprovals(
  requests: readonly ApprovalRequest[],
  options: { yes?: boolean; ask?: (question: string) => Promise<string> },
): Promise<ApprovalDecision[] | undefined> {
  if (options.yes) return requests.map((request) => ({ requestId: request.id, approved: true }));
  if (!options.ask) return undefined;
  const decisions: ApprovalDecision[] = [];
  for (const request of requests) {
    const answer = await options.ask(`Run ${request.call.name} ${JSON.stringify(request.call.arguments)}? [y/N] `);
    decisions.push({ requestId: request.id, approved: /^y(es)?$/i.test(answer.trim()) });
  }
  return decisions;
}

/** Drive a run to its end, asking for approvals as they come; returns the final outcome. */
export async function driveRun(
  setup: AgentSetup,
  first: AgentRun,
  options: { yes?: boolean; printer?: RunPrinter; ask?: (question: string) => Promise<string> },
): Promise<AgentOutcome> {
  let run = first;
  while (true) {
    for await (const event of run) options.printer?.event(event);
    const outcome = await run.outcome;
    if (outcome.stopReason !== "awaiting_approval") return outcome;
    const decisions = await decideApprovals(outcome.pendingApprovals, options);
    if (!decisions) return outcome;
    run = setup.safety.resume(setup.agent, outcome.runId, decisions);
  }
}

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description("Do what the request says with the local apps, asking before calls that need approval")
    .argument("<request>", 'what to do, e.g. "set an alarm for 7 am tomorrow"')
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--lora <adapter>", "a LoRA adapter (.gguf from botpsy tune train) applied on the model; refused on another base")
    .option("--max-steps <n>", "model turns allowed for the request (default 10)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice; fewer is faster on a busy machine)")
    .option("--session <id>", "continue this conversation (created when new)")
    .option("-y, --yes", "approve every call that needs approval (rules that deny still apply)")
    .option("--require-tool", "make the model call a tool on its first turn (for models too small to decide to)")
    .option("--json", "print the outcome as JSON instead of the running display")
    .action(async (request: string, options: AgentCommandOptions) => {
      if (request.trim() === "") throw new InvalidInputError('The request is empty: say what to do, e.g. botpsy run "what is on my calendar today?"');
      const setup = await setUpAgent({ ...options, quiet: options.json });
      const controller = new AbortController();
      const onInterrupt = (): void => controller.abort();
      process.once("SIGINT", onInterrupt);
      const terminal = process.stdin.isTTY && !options.json ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
      try {
        const printer = options.json ? undefined : new RunPrinter();
        const first = setup.agent.run(request, { sessionId: options.session, signal: controller.signal });
        const outcome = await driveRun(setup, first, { yes: options.yes, printer, ask: terminal ? (question) => terminal.question(question) : undefined });
        if (options.json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
        else {
          printer?.outcome(outcome);
          if (outcome.stopReason === "awaiting_approval") {
            process.stdout.write("No terminal to ask on: run again with --yes to approve, or interactively.\n");
          }
        }
        process.exitCode = EXIT_CODES[outcome.stopReason];
      } finally {
        process.removeListener("SIGINT", onInterrupt);
        terminal?.close();
        await setup.close();
      }
    });
}

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
