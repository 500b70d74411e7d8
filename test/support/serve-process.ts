import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

export interface ServeProcess {
  child: ChildProcess;
  /** The API's base URL, `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** The access token the server printed once (every request needs it). */
  token: string;
}

/**
 * `botpsy serve` as a child process of the real CLI: 127.0.0.1 on a free
 * port, the given model on one thread, and a new access token
 * (`--rotate-token`). Resolves once the server listens and has printed its
 * token; rejects with its error output if it exits first.
 */
export function startServeProcess(options: { home: string; modelPath: string }): Promise<ServeProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", resolve("src/cli/main.ts"), "serve", "--port", "0", "--model", options.modelPath, "--threads", "1", "--rotate-token"], {
    cwd: resolve("."),
    env: { ...process.env, BOTPSY_HOME: options.home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<ServeProcess>((done, fail) => {
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stdout);
      const printed = /^\s+(bp-\S+)$/m.exec(stdout);
      if (match && printed) done({ child, baseURL: match[1]!, token: printed[1]! });
    });
    child.once("exit", (code) => fail(new Error(`botpsy serve exited (${String(code)}) before listening: ${stderr}`)));
  });
}
