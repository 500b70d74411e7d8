import { spawn } from "node:child_process";
import { resolve } from "node:path";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `botpsy <args>` from the sources in a process of its own with BOTPSY_HOME set; killed after `timeoutMs`. */
export function runCli(home: string, args: string[], timeoutMs: number): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", resolve("src/cli/main.ts"), ...args], { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, stdout, stderr });
    });
  });
}
