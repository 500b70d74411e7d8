import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { InvalidInputError } from "./errors.js";

/**
 * Where botpsy keeps everything: `BOTPSY_HOME`, default `~/.botpsy`.
 *   models/            downloaded GGUF files
 *   profiles/<name>.db one SQLite store per profile (app state, sessions, approvals, audit)
 *   profiles/<name>/   the profile's files (the files app's sandbox)
 *   policy.json        the user's permission rules
 *   config.json        providers and defaults
 */
export function botpsyHome(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.BOTPSY_HOME;
  return configured && configured.trim() !== "" ? resolve(configured) : join(homedir(), ".botpsy");
}

export function modelsDirectory(home = botpsyHome()): string {
  return join(home, "models");
}

/** The profile in use: `BOTPSY_PROFILE`, default "default". */
export function profileName(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.BOTPSY_PROFILE;
  return configured && configured.trim() !== "" ? configured : "default";
}

export function profileDatabasePath(name = profileName(), home = botpsyHome()): string {
  return join(home, "profiles", `${name}.db`);
}

export function profileFilesDirectory(name = profileName(), home = botpsyHome()): string {
  return join(home, "profiles", name, "files");
}

export function policyPath(home = botpsyHome()): string {
  return join(home, "policy.json");
}

export function configPath(home = botpsyHome()): string {
  return join(home, "config.json");
}

/** BOTPSY_HOME/config.json: defaults a command uses when its flags leave them out. */
export interface BotpsyConfig {
  /** Default `--model` (catalog id, path, `hf:` or `openai:<base-url>[#model]`). */
  model?: string;
  /** Default `--offload` ("never", "auto" or a paired peer's name) and the auto rule's numbers. */
  offload?: { mode?: string; largerModelRatio?: number; longJobTokens?: number };
  /** The DHT bootstrap nodes ("host:port") of the peer link; there is no built-in default. */
  peer?: { bootstrap?: string[]; allowRemoteBootstrap?: boolean };
}

export function readConfig(home = botpsyHome()): BotpsyConfig {
  const path = configPath(home);
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new InvalidInputError(`${path} is not valid JSON; fix it or remove it.`, { cause: error, code: "invalid_config" });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new InvalidInputError(`${path} must hold a JSON object.`, { code: "invalid_config" });
  return parsed as BotpsyConfig;
}
