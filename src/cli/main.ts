#!/usr/bin/env node
import { Command } from "commander";
import { BotpsyError } from "../errors.js";
import { botpsyVersion } from "../version.js";
// Each command lives in its own module under commands/ and registers itself here.
// COMMANDS-IMPORTS (keep one import per line; add yours below)
import { registerAppsCommand } from "./commands/apps.js";
import { registerProfileCommand } from "./commands/profile.js";
import { registerUndoCommand } from "./commands/undo.js";
import { registerEvalCommand } from "./commands/eval.js";
import { registerRunCommand } from "./commands/run.js";
import { registerChatCommand } from "./commands/chat.js";
import { registerPolicyCommand } from "./commands/policy.js";
import { registerAuditCommand } from "./commands/audit.js";
import { registerModelsCommand } from "./commands/models.js";
import { registerGenerateCommand } from "./commands/generate.js";
import { registerResumeCommand } from "./commands/resume.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerTuneCommand } from "./commands/tune.js";
import { registerPeerCommand } from "./commands/peer.js";
// COMMANDS-IMPORTS-END


export function createProgram(): Command {
  const program = new Command();
  program
    .name("botpsy")
    .description("An on-device personal agent: a small language model that acts for you through local apps.")
    .version(botpsyVersion())
    .showHelpAfterError();
  // COMMANDS-REGISTER (keep one call per line; add yours below)
  registerAppsCommand(program);
  registerProfileCommand(program);
  registerUndoCommand(program);
  registerEvalCommand(program);
  registerRunCommand(program);
  registerChatCommand(program);
  registerPolicyCommand(program);
  registerAuditCommand(program);
  registerModelsCommand(program);
  registerGenerateCommand(program);
  registerResumeCommand(program);
  registerServeCommand(program);
  registerTuneCommand(program);
  registerPeerCommand(program);
  // COMMANDS-REGISTER-END
  return program;
}

async function main(): Promise<void> {
  try {
    await createProgram().parseAsync(process.argv);
  } catch (error) {
    if (error instanceof BotpsyError) {
      process.stderr.write(`botpsy: ${error.message} [${error.code}]\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`botpsy: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  }
}

await main();
