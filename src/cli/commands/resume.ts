import type { Command } from "commander";
import { InvalidInputError } from "../../errors.js";
import { parseApproveOption } from "../approval-input.js";
import { EXIT_CODE_HELP, runToVerdict, setUpAgent, withWebViaOptions, type AgentCommandOptions } from "./run.js";

/**
 * `botpsy resume <run id> --approve yes|no`: decide the calls of a run that
 * paused for approval (a script's run, or one with nobody at the terminal),
 * and let it finish. Without `--approve` the answers are asked for, on the
 * terminal or one line each from a pipe.
 */
export function registerResumeCommand(program: Command): void {
  withWebViaOptions(program.command("resume"))
    .description("Approve or decline the calls of a run that paused for approval, and let it finish")
    .argument("<run-id>", "the run id printed when the run paused")
    .option("--approve <yes|no>", "approve or decline every waiting call")
    .option("-y, --yes", "the same as --approve yes")
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice; fewer is faster on a busy machine)")
    .option("--json", "print the outcome as JSON instead of the running display")
    .option("--verbose", "also show llama.cpp's own log lines")
    .addHelpText("after", EXIT_CODE_HELP)
    .action(async (runId: string, options: AgentCommandOptions) => {
      if (runId.trim() === "") throw new InvalidInputError("Give the run id botpsy printed when the run paused.");
      parseApproveOption(options);
      const setup = await setUpAgent({ ...options, quiet: options.json });
      try {
        // Fails with a clear message when the run is unknown or not paused.
        const paused = setup.agent.sessions.loadPausedRun(runId);
        const first = {
          runId,
          outcome: Promise.resolve({
            runId,
            sessionId: paused.sessionId,
            stopReason: "awaiting_approval" as const,
            answer: "",
            calls: [],
            usage: paused.usage,
            steps: paused.steps,
            durationMs: 0,
            pendingApprovals: (paused.pending?.plans ?? []).flatMap((plan) => (plan.kind === "ask" ? [plan.request] : [])),
          }),
          async *[Symbol.asyncIterator]() {},
        };
        await runToVerdict(setup, () => first, paused.request, options);
      } finally {
        await setup.close();
      }
    });
}
