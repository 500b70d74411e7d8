import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { botpsyHome, profileDatabasePath, profileFilesDirectory, profileName } from "../config.js";
import { BotpsyError, InvalidInputError } from "../errors.js";
import { Store } from "../store/store.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import type { App, AppEnvironment, WebFetcher } from "./app.js";
import { builtInApps } from "./registry.js";

export interface ProfileOptions {
  /** Profile name (default BOTPSY_PROFILE or "default"). */
  name?: string;
  /** BOTPSY_HOME (default from the environment). */
  home?: string;
  /** Database path; ":memory:" for a throwaway profile (tests, evaluation). Default under home. */
  databasePath?: string;
  /** Fill a new profile: "demo" (the deterministic persona) or "empty". Default "demo". */
  seed?: "demo" | "empty";
  /** A fixed clock (ISO 8601). Default: the profile's stored clock, else the system clock. */
  clock?: string;
  /** IANA zone. Default: the profile's stored zone, else the system's. */
  timeZone?: string;
  /** Apps to load (default: every built-in app). */
  apps?: App[];
  providers?: Record<string, string | undefined>;
  /** How the apps' web requests go out (see AppEnvironment.webFetcher). Default: this machine's network. */
  webFetcher?: WebFetcher;
}

export class ProfileError extends BotpsyError {}

/**
 * A user's world: one store, the apps over it, a clock and a time zone. The
 * agent gets its tools from here; `botpsy apps show` reads its state.
 */
export class Profile {
  readonly name: string;
  readonly store: Store;
  readonly apps: App[];
  readonly environment: AppEnvironment;

  private constructor(name: string, store: Store, apps: App[], environment: AppEnvironment) {
    this.name = name;
    this.store = store;
    this.apps = apps;
    this.environment = environment;
  }

  static open(options: ProfileOptions = {}): Profile {
    const home = options.home ?? botpsyHome();
    const name = options.name ?? profileName();
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw new InvalidInputError(`Profile name "${name}" is not usable: use letters, digits, "-" and "_" (at most 64).`);
    }
    const databasePath = options.databasePath ?? profileDatabasePath(name, home);
    // An unreadable or empty file is refused here (store_unreadable), never replaced by a new profile.
    const store = Store.open(databasePath);
    const apps = options.apps ?? builtInApps();
    try {
      for (const app of apps) if (app.migrations) store.migrate(`app:${app.name}`, app.migrations);
    } catch (error) {
      store.close();
      throw error;
    }

    if (options.clock !== undefined) {
      if (Number.isNaN(Date.parse(options.clock))) {
        store.close();
        throw new InvalidInputError(`Clock "${options.clock}" is not an ISO 8601 date-time such as 2026-12-01T09:00:00Z.`);
      }
      store.setMeta("clock", options.clock);
    }
    if (options.timeZone !== undefined) {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: options.timeZone });
      } catch {
        store.close();
        throw new InvalidInputError(`Time zone "${options.timeZone}" is unknown; use an IANA name such as Europe/Lisbon.`);
      }
      store.setMeta("time_zone", options.timeZone);
    }
    const timeZone = store.getMeta("time_zone") ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const fixedClock = store.getMeta("clock");
    // A database given by path keeps its files beside it (as the default layout does), so
    // profiles in different folders never share a sandbox.
    const filesDirectory =
      databasePath === ":memory:"
        ? undefined
        : options.databasePath === undefined
          ? profileFilesDirectory(name, home)
          : join(databasePath.endsWith(".db") ? databasePath.slice(0, -3) : `${databasePath}.d`, "files");
    if (filesDirectory && !existsSync(filesDirectory)) mkdirSync(filesDirectory, { recursive: true });
    const environment: AppEnvironment = {
      home,
      providers: options.providers ?? {},
      ...(options.webFetcher !== undefined ? { webFetcher: options.webFetcher } : {}),
      now: () => (fixedClock ? new Date(fixedClock) : new Date()),
      timeZone,
      filesDirectory,
    };
    for (const app of apps) app.attach?.(store, environment);
    const profile = new Profile(name, store, apps, environment);
    if (store.getMeta("seeded") === undefined) profile.seed(options.seed ?? "demo");
    return profile;
  }

  private seed(kind: "demo" | "empty"): void {
    // Under the write lock, checked again: two first opens of one profile seed it once.
    this.store.immediate(() => {
      if (this.store.getMeta("seeded") !== undefined) return;
      if (kind === "demo") {
        const tx = this.store.read((transaction) => transaction);
        for (const app of this.apps) app.seed?.(tx, this.environment);
      }
      this.store.setMeta("seeded", kind);
    });
  }

  /** Every tool of every loaded app, each tagged with its app. */
  tools(): Tool[] {
    return this.apps.flatMap((app) => app.tools.map((tool) => ({ ...tool, app: tool.app ?? app.name })));
  }

  app(name: string): App {
    const found = this.apps.find((app) => app.name === name);
    if (!found) {
      throw new InvalidInputError(`There is no app "${name}". Apps: ${this.apps.map((app) => app.name).join(", ")}.`, {
        code: "unknown_app",
      });
    }
    return found;
  }

  /**
   * Run one tool call as one journaled action (undoable). Argument validation
   * errors and tool errors propagate to the caller (the agent turns them into
   * results the model reads).
   */
  async runTool(
    tool: Tool,
    args: unknown,
    options: { signal?: AbortSignal; sessionId?: string; dryRun?: boolean; runId?: string; callId?: string } = {},
  ): Promise<{ value: unknown; changes: number; actionId: number | undefined }> {
    const parsed = tool.input.parse(args);
    const outcome = await this.store.action(
      { tool: tool.name, args, sessionId: options.sessionId, runId: options.runId, callId: options.callId },
      (store) => {
        const context: ToolContext = {
          signal: options.signal ?? new AbortController().signal,
          sessionId: options.sessionId,
          store,
          now: this.environment.now,
          timeZone: this.environment.timeZone,
          dryRun: options.dryRun ?? false,
        };
        return tool.run(parsed, context);
      },
      { dryRun: options.dryRun },
    );
    return { value: outcome.value, changes: outcome.changes.length, actionId: outcome.actionId };
  }

  close(): void {
    this.store.close();
  }
}
