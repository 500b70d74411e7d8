import type { Command } from "commander";
import { Profile } from "../../apps/profile.js";
import { InvalidInputError } from "../../errors.js";
import { Policy } from "../../policy/policy.js";
import { createSafetyLayer } from "../../policy/safety.js";

export function registerUndoCommand(program: Command): void {
  program
    .command("undo")
    .description("Revert the last actions that changed state, list what was reverted, and record it in the audit log")
    .option("-n, --count <n>", "how many actions to revert", "1")
    .option("--session <id>", "only actions of this session")
    .option("--list", "list the latest actions instead of undoing")
    .option("--json", "print JSON")
    .action(async (options: { count: string; session?: string; list?: boolean; json?: boolean }) => {
      const count = Number(options.count);
      if (!Number.isInteger(count) || count < 1) throw new InvalidInputError(`--count must be a whole number of at least 1, not "${options.count}".`);
      const profile = Profile.open();
      try {
        if (options.list) {
          const history = profile.store.history({ limit: count === 1 ? 20 : count, sessionId: options.session });
          if (options.json) process.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
          else if (history.length === 0) process.stdout.write("Nothing to undo.\n");
          else for (const action of history) process.stdout.write(`#${action.id} ${action.at} ${action.tool}(${JSON.stringify(action.args)}) — ${action.changes.length} change(s)\n`);
          return;
        }
        const undone = await profile.store.undo(count, { sessionId: options.session });
        // Every undo goes into the hash-chained audit log beside the calls it reverts. The rules play no part
        // in recording it, so a policy file that does not validate must not stop an undo.
        createSafetyLayer(profile, { policy: Policy.defaultPolicy() }).recordUndo(undone, options.session);
        if (options.json) {
          process.stdout.write(`${JSON.stringify(undone, null, 2)}\n`);
          return;
        }
        if (undone.length === 0) process.stdout.write("Nothing to undo.\n");
        for (const action of undone) process.stdout.write(`Reverted #${action.id} ${action.tool}(${JSON.stringify(action.args)})\n`);
      } finally {
        profile.close();
      }
    });
}
