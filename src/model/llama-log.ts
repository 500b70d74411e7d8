/**
 * llama.cpp's own log lines (and node-llama-cpp's) go to stderr by default,
 * around our messages. They are kept out of the output unless the user asks
 * for them (`--verbose`); the last few are held so an error can quote them.
 */
import { LlamaLogLevel } from "node-llama-cpp";

const KEPT_LINES = 20;
let verbose = false;
const recent: string[] = [];

/** Show llama.cpp's log lines on stderr (`--verbose`) or keep them out of the output (the default). */
export function setLlamaLogVerbose(value: boolean): void {
  verbose = value;
}

/** The last lines llama.cpp logged, oldest first. */
export function recentLlamaLog(): readonly string[] {
  return [...recent];
}

/** The options `getLlama` takes: every line through `logger`, which prints only when verbose. */
export function llamaLogOptions(): { logLevel: LlamaLogLevel; logger: (level: LlamaLogLevel, message: string) => void } {
  return {
    logLevel: LlamaLogLevel.warn,
    logger: (level, message) => {
      const line = `[llama.cpp ${level}] ${message.trimEnd()}`;
      recent.push(line);
      if (recent.length > KEPT_LINES) recent.shift();
      if (verbose) process.stderr.write(`${line}\n`);
    },
  };
}
