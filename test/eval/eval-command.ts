import { Command } from "commander";
import { vi } from "vitest";
import { registerEvalCommand, type EvalCommandDependencies } from "../../src/cli/commands/eval.js";

/** Runs `botpsy eval …` through the command's own parsing and action, and returns what it printed on stdout. */
export async function botpsyEval(args: string[], dependencies: EvalCommandDependencies): Promise<string> {
  const program = new Command().exitOverride();
  registerEvalCommand(program, dependencies);
  let printed = "";
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    printed += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  try {
    await program.parseAsync(["eval", ...args], { from: "user" });
  } finally {
    write.mockRestore();
  }
  return printed;
}
