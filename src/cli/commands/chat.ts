import { createInterface } from "node:readline/promises";
import { CALL_BIAS_OPTION_DESCRIPTION, LORA_OPTION_DESCRIPTION, FORCED_CALL_FLOOR_OPTION_DESCRIPTION } from "../../model/shipped-adapter.js";
import type { Command } from "commander";
import { NotificationWatcher } from "../../apps/notifications.js";
import { errorMessage } from "../../errors.js";
import { judgeRun } from "../../agent/outcome.js";
import { parseApproveOption } from "../approval-input.js";
import { driveRun, EXIT_CODE_HELP, outcomeJson, RunPrinter, setUpAgent, withWebViaOptions, type AgentCommandOptions } from "./run.js";

const HELP = "Commands: /undo (revert the last action of this conversation), /tools, /session, /exit";

export function registerChatCommand(program: Command): void {
  withWebViaOptions(program.command("chat"))
    .description("Talk with botpsy: each message may act through the local apps")
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--lora <adapter>", LORA_OPTION_DESCRIPTION)
    .option("--call-bias <logit>", CALL_BIAS_OPTION_DESCRIPTION)
    .option("--forced-call-floor <logit>", FORCED_CALL_FLOOR_OPTION_DESCRIPTION)
    .option("--max-steps <n>", "model turns allowed per message (default 10)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice; fewer is faster on a busy machine)")
    .option("--session <id>", "continue this conversation (created when new)")
    .option("-y, --yes", "approve every call that needs approval (rules that deny still apply)")
    .option("--approve <yes|no>", "decide every call that needs approval without asking")
    .option("--require-tool", "make the model call a tool on the first turn of each message (for models too small to decide to)")
    .option("--json", "print each turn's outcome as one line of JSON (with its outcome and exit code) instead of the running display")
    .option("--verbose", "also show llama.cpp's own log lines")
    .addHelpText("after", EXIT_CODE_HELP.replace("Exit codes:", "Exit codes of a turn (the exitCode field of --json):"))
    .action(async (options: AgentCommandOptions) => {
      const standing = parseApproveOption(options);
      const setup = await setUpAgent({ ...options, quiet: options.json });
      const sessionId = setup.agent.sessions.ensureSession(options.session);
      const terminal = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
      const printer = options.json ? undefined : new RunPrinter(undefined, { standingDecision: standing });
      let running: AbortController | undefined;
      // Ctrl-C stops the request in progress; at the prompt it ends the conversation.
      terminal.on("SIGINT", () => {
        if (running) running.abort();
        else terminal.close();
      });
      // Lines are read through the iterator, which buffers: piped input typed ahead is never lost while a request runs.
      const lines = terminal[Symbol.asyncIterator]();
      const nextLine = async (prompt: string): Promise<string | undefined> => {
        // In JSON mode stdout carries only the turns' JSON lines.
        (options.json ? process.stderr : process.stdout).write(prompt);
        const next = await lines.next();
        return next.done ? undefined : String(next.value);
      };
      if (!options.json) process.stdout.write(`botpsy chat — model ${setup.model.id}, session ${sessionId}. ${HELP}\n`);
      // Alarms, timers and calendar reminders that come due while the conversation is open.
      const watcher = new NotificationWatcher(setup.profile).start();
      watcher.on("notification", (notification) => process.stdout.write(`\n[${notification.kind}] ${notification.message}\n`));
      try {
        while (true) {
          const read = await nextLine(options.json ? "" : "you> ");
          if (read === undefined) break;
          const line = read.trim();
          if (line === "") continue;
          if (line === "/exit" || line === "/quit") break;
          if (line === "/help") {
            process.stdout.write(`${HELP}\n`);
            continue;
          }
          if (line === "/tools") {
            for (const tool of setup.agent.toolbox.list()) process.stdout.write(`${tool.name} [${tool.risk}]${tool.app ? ` (${tool.app})` : ""}: ${tool.description}\n`);
            continue;
          }
          if (line === "/session") {
            const turns = setup.agent.sessions.turns(sessionId).length;
            process.stdout.write(`Session ${sessionId}: ${turns} turn(s). Continue it later with: botpsy chat --session ${sessionId}\n`);
            continue;
          }
          if (line === "/undo") {
            try {
              const undone = await setup.profile.store.undo(1, { sessionId });
              setup.safety.recordUndo(undone, sessionId);
              if (undone.length === 0) process.stdout.write("Nothing to undo in this conversation.\n");
              for (const action of undone) process.stdout.write(`Reverted ${action.tool}(${JSON.stringify(action.args)})\n`);
            } catch (error) {
              process.stdout.write(`Cannot undo: ${errorMessage(error)}\n`);
            }
            continue;
          }
          if (line.startsWith("/")) {
            process.stdout.write(`Unknown command ${line}. ${HELP}\n`);
            continue;
          }
          running = new AbortController();
          try {
            const run = setup.runtime.run(line, { sessionId, signal: running.signal });
            const outcome = await driveRun(setup, run, { standing, printer, ask: (question) => nextLine(question) });
            const verdict = judgeRun(outcome, line);
            if (options.json) process.stdout.write(`${JSON.stringify(outcomeJson(outcome, verdict))}\n`);
            else printer?.outcome(outcome, verdict);
          } catch (error) {
            process.stdout.write(`botpsy: ${errorMessage(error)}\n`);
          } finally {
            running = undefined;
          }
        }
      } finally {
        watcher.stop();
        terminal.close();
        await setup.close();
      }
    });
}
