import { homedir } from "node:os";
import { join, resolve } from "node:path";

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
