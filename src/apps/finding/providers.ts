import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseHandle, Store } from "../../store/store.js";
import { ToolError, type ToolContext } from "../../tools/tool.js";
import { packageRoot } from "../../version.js";
import type { AppEnvironment, WebFetcher } from "../app.js";

/**
 * The providers (URLs) a profile configured, and how its web requests go out,
 * found again from a tool call. Tools get the store transaction but not the
 * environment, so the apps remember each open profile's providers by its
 * database handle when the profile attaches them: two profiles in one process
 * never see each other's providers or fetchers.
 */
const providersByDatabase = new WeakMap<DatabaseHandle, Pick<AppEnvironment, "providers" | "webFetcher">>();

export function rememberProviders(store: Store, environment: AppEnvironment): void {
  providersByDatabase.set(store.db, { providers: environment.providers, ...(environment.webFetcher !== undefined ? { webFetcher: environment.webFetcher } : {}) });
}

/** The configured URL of `key` (web_search, weather, news_rss), or undefined: then the app stays offline. */
export function providerUrl(context: ToolContext, key: string): string | undefined {
  const value = providersByDatabase.get(context.store.db)?.providers[key];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** This machine's own network, for a profile that was given no other way out. */
const ownNetwork: WebFetcher = async ({ url, accept, signal }) => {
  const response = await fetch(url, { signal, headers: { accept } });
  return { status: response.status, body: await response.text() };
};

/** The bundled data file at `relativePath` under data/, read as text. */
export function readDataFile(relativePath: string): string {
  return readFileSync(join(packageRoot(), "data", relativePath), "utf8");
}

export const PROVIDER_TIMEOUT_MS = 8000;

/**
 * GET `url` and return the body as text. Failures become ToolErrors that say
 * which provider failed and that the bundled data is the fallback.
 */
export async function fetchText(url: string, context: ToolContext, provider: string): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError("provider_misconfigured", `The ${provider} provider URL "${url}" is not a valid URL. Fix it in the configuration.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ToolError("provider_misconfigured", `The ${provider} provider URL must start with http:// or https://, not "${parsed.protocol}".`);
  }
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(PROVIDER_TIMEOUT_MS)]);
  const fetcher = providersByDatabase.get(context.store.db)?.webFetcher ?? ownNetwork;
  let response: Awaited<ReturnType<WebFetcher>>;
  try {
    response = await fetcher({ url: parsed.href, accept: "application/json, application/rss+xml, text/html;q=0.8, */*;q=0.5", signal });
  } catch (error) {
    // A fetcher that says what went wrong (a peer that refused or is gone) is passed on as it said it.
    if (error instanceof ToolError) throw error;
    throw new ToolError(
      "provider_unreachable",
      `The ${provider} provider at ${parsed.origin} did not answer (${error instanceof Error ? error.message : String(error)}). Retry later.`,
    );
  }
  if (response.status < 200 || response.status > 299) {
    throw new ToolError("provider_error", `The ${provider} provider answered HTTP ${response.status}. Retry later or check its URL.`);
  }
  return response.body;
}

export async function fetchJson(url: string, context: ToolContext, provider: string): Promise<unknown> {
  const text = await fetchText(url, context, provider);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ToolError("provider_error", `The ${provider} provider did not answer with JSON. Check that its URL points at a JSON endpoint.`);
  }
}

/** `base` with the query parameters set (keeping any the user configured). */
export function withQuery(base: string, parameters: Record<string, string>): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ToolError("provider_misconfigured", `The provider URL "${base}" is not a valid URL. Fix it in the configuration.`);
  }
  for (const [key, value] of Object.entries(parameters)) url.searchParams.set(key, value);
  return url.toString();
}
