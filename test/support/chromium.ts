import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Where the browser tests find Chromium. The README's `npm test` must pass on
 * a fresh machine, so the test run finds the browser itself (and the global
 * setup installs it where it can) instead of assuming one fixed path.
 */

/** Set to a Chromium (or Chrome) executable to use that one. */
export const CHROMIUM_VARIABLE = "BOTPSY_CHROMIUM";
/** Set by the global setup when it tried to install Chromium and could not. */
export const CHROMIUM_SETUP_PROBLEM_VARIABLE = "BOTPSY_CHROMIUM_SETUP_PROBLEM";

/** Names the browser goes by on PATH, most usual first. */
export const CHROMIUM_COMMANDS = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"] as const;
/** Where Debian, Ubuntu and their snaps put it when PATH does not say. */
export const CHROMIUM_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium", "/snap/bin/chromium", "/usr/bin/google-chrome-stable"] as const;

export class ChromiumMissingError extends Error {
  readonly code = "chromium_missing";
  constructor(detail: string) {
    super(
      `The browser tests need Chromium and none was found (${detail}). ` +
        `Install it (Debian/Ubuntu: \`apt-get install chromium\`; the test setup does this itself when it runs as root with apt-get), ` +
        `or set ${CHROMIUM_VARIABLE} to a Chromium or Chrome executable.`,
    );
    this.name = "ChromiumMissingError";
  }
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `command` on `searchPath`, or undefined. */
export function onPath(command: string, searchPath: string = process.env.PATH ?? ""): string | undefined {
  for (const directory of searchPath.split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface LocateOptions {
  environment?: NodeJS.ProcessEnv;
  commands?: readonly string[];
  paths?: readonly string[];
}

/**
 * The Chromium executable to launch, or undefined where there is none: the
 * variable first (an error when it names nothing runnable, since the user
 * asked for that one), then PATH, then the usual install paths.
 */
export function locateChromium(options: LocateOptions = {}): string | undefined {
  const environment = options.environment ?? process.env;
  const chosen = environment[CHROMIUM_VARIABLE];
  if (chosen !== undefined && chosen !== "") {
    if (!isExecutableFile(chosen)) throw new ChromiumMissingError(`${CHROMIUM_VARIABLE} is "${chosen}", which is not an executable file`);
    return chosen;
  }
  for (const command of options.commands ?? CHROMIUM_COMMANDS) {
    const found = onPath(command, environment.PATH ?? "");
    if (found !== undefined) return found;
  }
  return (options.paths ?? CHROMIUM_PATHS).find(isExecutableFile);
}

/** The Chromium executable for a browser test; throws ChromiumMissingError, saying what to install, where there is none. */
export function chromiumExecutable(): string {
  const found = locateChromium();
  if (found !== undefined) return found;
  const problem = process.env[CHROMIUM_SETUP_PROBLEM_VARIABLE];
  throw new ChromiumMissingError(
    `not on PATH as ${CHROMIUM_COMMANDS.join(", ")}, not at ${CHROMIUM_PATHS.join(", ")}` + (problem !== undefined ? `; the test setup could not install it: ${problem}` : ""),
  );
}

/** Whether this process may install system packages itself: root, with apt-get on PATH. */
export function canInstallWithApt(): boolean {
  return process.getuid?.() === 0 && onPath("apt-get") !== undefined;
}

/**
 * Installs Debian's chromium package with apt-get (once per machine: the
 * global setup only calls this when no browser was found). Returns a reason
 * when the install failed, undefined when it worked.
 */
export function installChromiumWithApt(report: (line: string) => void): string | undefined {
  const environment = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const started = Date.now();
  report("browser tests: Chromium not found; installing it with apt-get (once for this machine, a minute or two)");
  for (const args of [["update", "-qq"], ["install", "-y", "-qq", "chromium"]]) {
    const run = spawnSync("apt-get", args, { env: environment, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (run.error !== undefined) return `apt-get ${args[0]} did not start: ${run.error.message}`;
    if (run.status !== 0) {
      const tail = `${run.stderr ?? ""}${run.stdout ?? ""}`.trim().split("\n").slice(-3).join(" | ");
      return `apt-get ${args.join(" ")} exited with ${run.status ?? run.signal}: ${tail}`;
    }
  }
  report(`browser tests: Chromium installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return undefined;
}
