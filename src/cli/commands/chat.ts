import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { NotificationWatcher } from "../../apps/notifications.js";
import { errorMessage } from "../../errors.js";
import { driveRun, RunPrinter, setUpAgent, type AgentCommandOptions } from "./run.js";

const HELP = "Commands: /undo (revert the last action of this conversation), /tools, /session, /exit";

export function registerChatCommand(program: Command): void {
  program
    .command("chat")
    .description("Talk with botpsy: each message may act through the local apps")
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--lora <adapter>", "a LoRA adapter (.gguf from botpsy tune train) applied on the model; refused on another base")
    .option("--max-steps <n>", "model turns allowed per message (default 10)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice; fewer is faster on a busy machine)")
    .option("--session <id>", "continue this conversation (created when new)")
    .option("-y, --yes", "approve every call that needs approval (rules that deny still apply)")
    .option("--require-tool", "make the model call a tool on the first turn of each message (for models too small to decide to)")
    .action(async (options: Omit<AgentCommandOptions, "json">) => {
      const setup = await setUpAgent(options);
      const sessionId = setup.agent.sessions.ensureSession(options.session);
      const terminal = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
      const printer = new RunPrinter();
      let running: AbortController | undefined;
      // Ctrl-C stops the request in progress; at the prompt it ends the conversation.
      terminal.on("SIGINT", () => {
        if (running) running.abort();
        else terminal.close();
      });
      // Lines are read through the iterator, which buffers: piped input typed ahead is never lost while a request runs.
      const lines = terminal[Symbol.asyncIterator]();
      const nextLine = async (prompt: string): Promise<string | undefined> => {
        process.stdout.write(prompt);
        const next = await lines.next();
        return next.done ? undefined : String(next.value);
      };
      process.stdout.write(`botpsy chat — model ${setup.model.id}, session ${sessionId}. ${HELP}\n`);
      // Alarms, timers and calendar reminders that come due while the conversation is open.
      const watcher = new NotificationWatcher(setup.profile).start();
      watcher.on("notification", (notification) => process.stdout.write(`\n[${notification.kind}] ${notification.message}\n`));
      try {
        while (true) {
          const read = await nextLine("you> ");
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
            const run = setup.agent.run(line, { sessionId, signal: running.signal });
            const outcome = await driveRun(setup, run, { yes: options.yes, printer, ask: async (question) => (await nextLine(question)) ?? "" });
            printer.outcome(outcome);
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
