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
  /**
   * The DHT bootstrap nodes ("host:port") of the peer link (there is no
   * built-in default), and `webVia`: default `--web-via` ("here" or a paired
   * peer's name that lends its internet).
   */
  peer?: { bootstrap?: string[]; allowRemoteBootstrap?: boolean; webVia?: string };
  /** The web apps' providers: `web_search` (a JSON search endpoint), `weather`, `news_rss` (URLs). Default none: the apps answer from bundled data. */
  providers?: Record<string, string>;
}

/** The provider keys config.json may set. */
export const PROVIDER_KEYS = ["web_search", "weather", "news_rss"] as const;

/** config.json's `providers`, checked: an object of http(s) URLs under known keys. */
export function configuredProviders(config: BotpsyConfig): Record<string, string> {
  const providers = config.providers;
  if (providers === undefined) return {};
  if (typeof providers !== "object" || providers === null || Array.isArray(providers)) {
    throw new InvalidInputError(`"providers" in config.json must be an object such as {"web_search": "https://search.example/api"}.`, { code: "invalid_config" });
  }
  for (const [key, value] of Object.entries(providers)) {
    if (!(PROVIDER_KEYS as readonly string[]).includes(key)) {
      throw new InvalidInputError(`"providers.${key}" in config.json is not a provider; use ${PROVIDER_KEYS.join(", ")}.`, { code: "invalid_config" });
    }
    if (typeof value !== "string" || !/^https?:\/\/\S+$/i.test(value.trim())) {
      throw new InvalidInputError(`"providers.${key}" in config.json must be an http:// or https:// URL.`, { code: "invalid_config" });
    }
  }
  return providers;
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
