import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

export interface LenderProcess {
  child: ChildProcess;
  /** The lender's public key, as `botpsy peer serve` printed it. */
  publicKey: string;
  /** What it printed so far, stdout then stderr, for an assertion's message. */
  output: () => string;
}

/** Starts `botpsy peer serve <args>` from the sources with BOTPSY_HOME set; resolves once it prints its key, rejects if it exits first. */
export async function startLenderProcess(home: string, args: string[]): Promise<LenderProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", resolve("src/cli/main.ts"), "peer", "serve", ...args], {
    cwd: resolve("."),
    env: { ...process.env, BOTPSY_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const publicKey = await new Promise<string>((done, fail) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = / as ([0-9a-f]{64}) /.exec(stdout);
      if (match) done(match[1]!);
    });
    child.once("exit", (code) => fail(new Error(`botpsy peer serve exited (${String(code)}): ${stderr}`)));
  });
  return { child, publicKey, output: () => stdout + stderr };
}
