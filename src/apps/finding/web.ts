import MiniSearch from "minisearch";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError, type ToolContext } from "../../tools/tool.js";
import { packageRoot } from "../../version.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { fetchJson, fetchText, providerUrl, rememberProviders, withQuery } from "./providers.js";

export const WEB_APP = "web";

/** A page of the offline web: bundled, or planted at runtime in the profile (collection web/extra_pages). */
export interface WebPage {
  url: string;
  title: string;
  site: string;
  topic: string;
  /** YYYY-MM-DD */
  published: string;
  text: string;
}

export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
  site: string;
}

const RESULT_LIMIT = 10;
const PAGE_TEXT_LIMIT = 4000;
const SNIPPET_LENGTH = 200;

const STOP_WORDS = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "i", "in", "is", "it", "of", "on", "or", "the", "to", "what", "with", "my", "me", "do", "can",
]);

function processTerm(term: string): string | null {
  const normalised = term.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  return normalised === "" || STOP_WORDS.has(normalised) ? null : normalised;
}

interface IndexedPage {
  id: string;
  title: string;
  text: string;
  site: string;
  topic: string;
}

let bundledPages: Map<string, WebPage> | undefined;
let index: MiniSearch<IndexedPage> | undefined;

/** The bundled corpus (data/web/corpus.jsonl.gz), read once per process. */
export function bundledWebPages(): Map<string, WebPage> {
  if (bundledPages) return bundledPages;
  const raw = gunzipSync(readFileSync(join(packageRoot(), "data", "web", "corpus.jsonl.gz"))).toString("utf8");
  const pages = new Map<string, WebPage>();
  for (const line of raw.split("\n")) {
    if (line.trim() === "") continue;
    const page = JSON.parse(line) as WebPage;
    pages.set(page.url, page);
  }
  bundledPages = pages;
  return pages;
}

/** The BM25 index over the bundled corpus, built on first use and kept for the process. */
function bundledIndex(): MiniSearch<IndexedPage> {
  if (index) return index;
  const search = new MiniSearch<IndexedPage>({
    fields: ["title", "text", "site", "topic"],
    idField: "id",
    processTerm,
    searchOptions: {
      boost: { title: 3, topic: 1.5 },
      fuzzy: (term) => (term.length > 5 ? 0.2 : false),
      prefix: (term) => term.length > 3,
      processTerm,
    },
  });
  search.addAll([...bundledWebPages().values()].map((page) => indexed(page)));
  index = search;
  return search;
}

function indexed(page: WebPage, prefix = ""): IndexedPage {
  return { id: `${prefix}${page.url}`, title: page.title, text: page.text, site: page.site, topic: page.topic };
}

export function extraPagesCollection(tx: StoreTransaction) {
  return tx.collection<WebPage>(WEB_APP, "extra_pages");
}

/** Put a page on the profile's offline web (evaluation and safety scenarios plant content so). */
export function addExtraPage(tx: StoreTransaction, page: Omit<WebPage, "published" | "topic" | "site"> & Partial<WebPage>): WebPage {
  const url = normaliseUrl(page.url);
  const complete: WebPage = {
    url,
    title: page.title,
    text: page.text,
    site: page.site ?? new URL(url).host,
    topic: page.topic ?? "other",
    published: page.published ?? "2026-01-01",
  };
  extraPagesCollection(tx).put(url, complete);
  return complete;
}

function normaliseUrl(url: string): string {
  const trimmed = url.trim();
  const withScheme = /^[a-z]+:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  try {
    const parsed = new URL(withScheme);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("scheme");
    const text = parsed.toString();
    return parsed.pathname === "/" && !trimmed.endsWith("/") && parsed.search === "" ? text.slice(0, -1) : text;
  } catch {
    throw new ToolError("invalid_url", `url="${url}" is not a web address. Use a url from search_web, such as "https://www.example.com/page".`);
  }
}

function snippetOf(text: string, terms: readonly string[]): string {
  const sentences = text.split(/(?<=[.!?])\s+|\n+/).filter((sentence) => sentence.trim() !== "");
  let best = sentences[0] ?? "";
  let bestScore = -1;
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    const score = terms.filter((term) => lower.includes(term)).length;
    if (score > bestScore) [best, bestScore] = [sentence, score];
  }
  return best.length <= SNIPPET_LENGTH ? best : `${best.slice(0, SNIPPET_LENGTH - 1)}…`;
}

/**
 * Search the bundled corpus and the profile's planted pages together, so that
 * BM25 statistics cover both. The planted pages join the shared index only for
 * the duration of this synchronous call.
 */
export function searchOffline(tx: StoreTransaction, query: string, limit: number): { total: number; results: WebSearchResult[] } {
  const search = bundledIndex();
  const bundled = bundledWebPages();
  const extras = extraPagesCollection(tx).all();
  const extraDocuments = extras.map((page) => indexed(page, "extra:"));
  search.addAll(extraDocuments);
  let hits: ReturnType<typeof search.search>;
  try {
    hits = search.search(query);
  } finally {
    for (const document of extraDocuments) search.remove(document);
  }
  const extraByUrl = new Map(extras.map((page) => [page.url, page]));
  const seen = new Set<string>();
  const results: WebSearchResult[] = [];
  for (const hit of hits) {
    const id = String(hit.id);
    const url = id.startsWith("extra:") ? id.slice("extra:".length) : id;
    // A planted page replaces a bundled page at the same address.
    if (seen.has(url) || (!id.startsWith("extra:") && extraByUrl.has(url))) continue;
    seen.add(url);
    const page = extraByUrl.get(url) ?? bundled.get(url);
    if (!page) continue;
    if (results.length < limit) results.push({ title: page.title, url: page.url, snippet: snippetOf(page.text, hit.terms), site: page.site });
  }
  return { total: seen.size, results };
}

const providerResults = z.union([
  z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string().optional(), description: z.string().optional() })),
  z.object({
    results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string().optional(), description: z.string().optional() })),
  }),
]);

async function searchProvider(url: string, query: string, limit: number, context: ToolContext): Promise<WebSearchResult[]> {
  const body = await fetchJson(withQuery(url, { q: query }), context, "web search");
  const parsed = providerResults.safeParse(body);
  if (!parsed.success) {
    throw new ToolError(
      "provider_error",
      "The web search provider answered JSON of an unknown shape; it must be a list of {title, url, snippet} (or {results: [...]}).",
    );
  }
  const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.results;
  return list.slice(0, limit).map((result) => ({
    title: result.title,
    url: result.url,
    snippet: (result.snippet ?? result.description ?? "").slice(0, SNIPPET_LENGTH),
    site: (() => {
      try {
        return new URL(result.url).host;
      } catch {
        return "";
      }
    })(),
  }));
}

function htmlToText(html: string): { title: string; text: string } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim() ?? "";
  const text = html
    .replace(/<(head|script|style|noscript)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<br\s*\/?>|<\/(p|div|h[1-6]|li)>/gi, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n+/g, "\n\n")
    .trim();
  return { title, text };
}

const searchWeb = defineTool({
  name: "search_web",
  description: "Search the web for pages about a subject. Returns titles, addresses and snippets; open one with open_page.",
  input: z.object({
    query: z.string().trim().min(1).max(300).describe('What to look for, e.g. "best time to visit Porto".'),
    limit: z.number().int().min(1).max(RESULT_LIMIT).optional().describe("How many results (default 5)."),
  }),
  risk: "read",
  resultTrust: "untrusted",
  async run(args, context) {
    requireConnectivity(context.store, "search the web");
    const limit = args.limit ?? 5;
    const provider = providerUrl(context, "web_search");
    if (provider !== undefined) {
      const results = await searchProvider(provider, args.query, limit, context);
      return { query: args.query, source: "web search provider", count: results.length, results };
    }
    const { total, results } = searchOffline(context.store, args.query, limit);
    if (total === 0) {
      return { query: args.query, source: "offline index", count: 0, results: [], hint: "Nothing found. Try fewer or different words." };
    }
    return { query: args.query, source: "offline index", count: results.length, more: Math.max(0, total - results.length), results };
  },
});

const openPage = defineTool({
  name: "open_page",
  description: "Open a web page by its address (from search_web) and read its text.",
  input: z.object({
    url: z.string().trim().min(1).describe('The page address, e.g. "https://www.example.com/page".'),
  }),
  risk: "read",
  resultTrust: "untrusted",
  egressArguments: ["url"],
  async run(args, context) {
    const url = normaliseUrl(args.url);
    requireConnectivity(context.store, "open the page");
    const page = extraPagesCollection(context.store).get(url) ?? bundledWebPages().get(url);
    if (page) {
      const truncated = page.text.length > PAGE_TEXT_LIMIT;
      return {
        url: page.url,
        title: page.title,
        site: page.site,
        published: page.published,
        text: truncated ? `${page.text.slice(0, PAGE_TEXT_LIMIT)}…` : page.text,
        ...(truncated ? { truncated: true } : {}),
      };
    }
    if (providerUrl(context, "web_search") !== undefined) {
      const { title, text } = htmlToText(await fetchText(url, context, "web page"));
      const truncated = text.length > PAGE_TEXT_LIMIT;
      return { url, title, site: new URL(url).host, text: truncated ? `${text.slice(0, PAGE_TEXT_LIMIT)}…` : text, ...(truncated ? { truncated: true } : {}) };
    }
    throw new ToolError("page_not_found", `No page at ${url}. Open an address from search_web results, or search first.`);
  },
});

export const webApp: App = {
  name: WEB_APP,
  group: "finding",
  title: "Web",
  description: "Web search over an offline index of bundled pages (or a configured search provider), and reading pages.",
  tools: [searchWeb, openPage],
  attach(store, environment) {
    rememberProviders(store, environment);
  },
  view(tx, environment) {
    const extras = extraPagesCollection(tx).all();
    const provider = environment.providers.web_search;
    const lines = [
      `Web search: ${provider ? `provider ${provider}` : "offline index"} of ${bundledWebPages().size} bundled pages`,
      `Pages added to this profile: ${extras.length}`,
      ...extras.slice(0, 20).map((page) => `  ${page.title} — ${page.url}`),
    ];
    return { text: lines.join("\n"), data: { provider: provider ?? null, bundledPages: bundledWebPages().size, extraPages: extras } };
  },
};
