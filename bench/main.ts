import { pathToFileURL } from "node:url";
import { errorMessage } from "../src/errors.js";

/**
 * `npm run bench -- <name> [--json] [options]`: runs one benchmark script.
 * Each entry loads its module only when chosen and returns the exit code.
 */
const BENCHMARKS: Record<string, (argv: string[]) => Promise<number>> = {
  model: async (argv) => (await import("./model.js")).runModelBench(argv),
  agent: async (argv) => (await import("./agent.js")).runAgentBenchMain(argv),
  injection: async (argv) => (await import("./injection.js")).runInjectionBench(argv),
  cache: async (argv) => (await import("./cache.js")).runCacheBench(argv),
  serve: async (argv) => (await import("./serve.js")).runServeBench(argv),
  peer: async (argv) => (await import("./peer.js")).runPeerBench(argv),
  grammar: async (argv) => (await import("./grammar.js")).runGrammarBench(argv),
};

export async function runBench(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  const run = name !== undefined ? BENCHMARKS[name] : undefined;
  if (run === undefined) {
    process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHMARKS).join("|")}> [--json]\n`);
    return name === undefined ? 64 : 65;
  }
  return run(rest);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runBench(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`bench: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
