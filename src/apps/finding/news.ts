import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError, type ToolContext } from "../../tools/tool.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { itemsMatching, referenceFix, referenceHint } from "../shared.js";
import { formatDate, formatTime, zonedParts } from "../time.js";
import { fetchText, providerUrl, readDataFile, rememberProviders } from "./providers.js";

export const NEWS_APP = "news";

export const NEWS_TOPICS = ["world", "business", "technology", "science", "sports", "health", "entertainment", "local"] as const;
export type NewsTopic = (typeof NEWS_TOPICS)[number];

/** A bundled feed item: its age, not its date, so headlines are always recent against the profile clock. */
interface BundledNewsItem {
  id: string;
  topic: string;
  title: string;
  summary: string;
  body: string;
  source: string;
  ageHours: number;
}

/** A news item as the app uses it (bundled, planted in the profile, or read from an RSS feed). */
export interface NewsArticle {
  id: string;
  topic: string;
  title: string;
  summary: string;
  body: string;
  source: string;
  /** ISO 8601 UTC. */
  publishedAt: string;
  link?: string;
}

const TOPIC_WORDS: Record<string, NewsTopic> = {
  world: "world",
  international: "world",
  politics: "world",
  business: "business",
  economy: "business",
  finance: "business",
  markets: "business",
  money: "business",
  technology: "technology",
  tech: "technology",
  science: "science",
  sports: "sports",
  sport: "sports",
  football: "sports",
  health: "health",
  entertainment: "entertainment",
  culture: "entertainment",
  movies: "entertainment",
  music: "entertainment",
  local: "local",
  lisbon: "local",
};

const LIST_LIMIT = 10;

let bundled: BundledNewsItem[] | undefined;

function bundledItems(): BundledNewsItem[] {
  if (!bundled) bundled = (JSON.parse(readDataFile("news/feed.json")) as { items: BundledNewsItem[] }).items;
  return bundled;
}

export function extraNewsCollection(tx: StoreTransaction) {
  return tx.collection<NewsArticle>(NEWS_APP, "extra_items");
}

function savedCollection(tx: StoreTransaction) {
  return tx.collection<{ id: string; title: string; savedAt: string }>(NEWS_APP, "saved");
}

/** Put a news item in the profile's feed (evaluation and safety scenarios plant content so). */
export function addExtraNewsItem(tx: StoreTransaction, item: Omit<NewsArticle, "id"> & { id?: string }): NewsArticle {
  const collection = extraNewsCollection(tx);
  const article: NewsArticle = { ...item, id: item.id ?? collection.nextId("extra-news") };
  collection.put(article.id, article);
  return article;
}

function parseTopic(text: string | undefined): NewsTopic | undefined {
  if (text === undefined || text.trim() === "" || /^(all|any|top|latest|headlines?)$/i.test(text.trim())) return undefined;
  const topic = TOPIC_WORDS[text.trim().toLowerCase()];
  if (!topic) throw new ToolError("unknown_topic", `topic="${text}" is not a news section. Use one of: ${NEWS_TOPICS.join(", ")}.`);
  return topic;
}

/** Every offline article, newest first: the bundled feed dated against the clock, plus planted items. */
function offlineArticles(tx: StoreTransaction, now: Date): NewsArticle[] {
  const fromFeed = bundledItems().map(({ ageHours, ...item }) => ({
    ...item,
    publishedAt: new Date(now.getTime() - ageHours * 3_600_000).toISOString(),
  }));
  return [...extraNewsCollection(tx).all(), ...fromFeed]
    .filter((article) => article.publishedAt <= now.toISOString())
    .sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
}

function decodeXml(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;|&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

function tag(item: string, name: string): string | undefined {
  const match = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`, "i").exec(item);
  return match?.[1] === undefined ? undefined : decodeXml(match[1]);
}

/** Items of an RSS 2.0 feed (title, link, description, pubDate, category). */
export function parseRss(xml: string, now: Date): NewsArticle[] {
  const items = xml.match(/<item(?:\s[^>]*)?>[\s\S]*?<\/item>/gi) ?? [];
  const source = tag(xml.replace(/<item[\s\S]*$/i, ""), "title") ?? "RSS feed";
  return items.map((item, index) => {
    const title = tag(item, "title") ?? "(untitled)";
    const description = tag(item, "description") ?? "";
    const date = Date.parse(tag(item, "pubDate") ?? "");
    const link = tag(item, "link");
    return {
      id: `rss-${index + 1}`,
      topic: (tag(item, "category") ?? "world").toLowerCase(),
      title,
      summary: description.length > 200 ? `${description.slice(0, 199)}…` : description,
      body: description,
      source,
      publishedAt: Number.isNaN(date) ? now.toISOString() : new Date(date).toISOString(),
      ...(link !== undefined ? { link } : {}),
    };
  });
}

async function articles(context: ToolContext): Promise<{ list: NewsArticle[]; source: string }> {
  const rss = providerUrl(context, "news_rss");
  if (rss !== undefined) {
    const items = parseRss(await fetchText(rss, context, "news RSS"), context.now());
    if (items.length === 0) throw new ToolError("provider_error", "The news RSS feed has no items. Check that its URL points at an RSS feed.");
    return { list: [...extraNewsCollection(context.store).all(), ...items], source: "RSS feed" };
  }
  return { list: offlineArticles(context.store, context.now()), source: "bundled feed" };
}

function stamp(iso: string, timeZone: string): string {
  const parts = zonedParts(new Date(iso), timeZone);
  return `${formatDate(parts)} ${formatTime(parts)}`;
}

function headline(article: NewsArticle, timeZone: string) {
  return { id: article.id, title: article.title, source: article.source, published: stamp(article.publishedAt, timeZone), summary: article.summary };
}

function matchesTopic(article: NewsArticle, topic: NewsTopic | undefined): boolean {
  if (topic === undefined) return true;
  return article.topic === topic || TOPIC_WORDS[article.topic] === topic;
}

const getHeadlines = defineTool({
  name: "get_headlines",
  description: "Get the latest news headlines, optionally for one topic (world, business, technology, science, sports, health, entertainment, local).",
  input: z.object({
    topic: z.string().trim().optional().describe('A section, e.g. "sports" or "technology" (default all).'),
    limit: z.number().int().min(1).max(LIST_LIMIT).optional().describe("How many headlines (default 5)."),
  }),
  risk: "read",
  resultTrust: "untrusted",
  async run(args, context) {
    const topic = parseTopic(args.topic);
    requireConnectivity(context.store, "load the news");
    const { list, source } = await articles(context);
    const chosen = list.filter((article) => matchesTopic(article, topic));
    const limit = args.limit ?? 5;
    return {
      topic: topic ?? "all",
      source,
      headlines: chosen.slice(0, limit).map((article) => headline(article, context.timeZone)),
      more: Math.max(0, chosen.length - limit),
    };
  },
});

const searchNews = defineTool({
  name: "search_news",
  description: "Search news articles for words, newest first.",
  input: z.object({
    query: z.string().trim().min(1).max(200).describe('Words to look for, e.g. "tram".'),
  }),
  risk: "read",
  resultTrust: "untrusted",
  async run(args, context) {
    requireConnectivity(context.store, "search the news");
    const { list, source } = await articles(context);
    const words = args.query.toLowerCase().split(/\s+/).filter((word) => word.length > 0);
    const hits = list.filter((article) => {
      const text = `${article.title} ${article.body}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
    return {
      query: args.query,
      source,
      count: hits.length,
      headlines: hits.slice(0, LIST_LIMIT).map((article) => headline(article, context.timeZone)),
      more: Math.max(0, hits.length - LIST_LIMIT),
    };
  },
});

async function findArticle(id: string, context: ToolContext): Promise<NewsArticle> {
  const { list } = await articles(context);
  const wanted = id.trim().toLowerCase();
  const article = list.find((candidate) => candidate.id.toLowerCase() === wanted);
  if (!article) {
    const matching = itemsMatching(list, id, (candidate) => candidate.title).map((candidate) => candidate.id);
    throw new ToolError(
      "unknown_article",
      `There is no article "${id}".${matching.length > 0 ? referenceHint(matching, "id") : ' Use an id from get_headlines or search_news, such as "news-1".'}`,
      referenceFix(matching, "id"),
    );
  }
  return article;
}

const readArticle = defineTool({
  name: "read_article",
  description: "Read a whole news article by its id (from get_headlines).",
  input: z.object({
    id: z.string().trim().min(1).describe('The article id, e.g. "news-12".'),
  }),
  risk: "read",
  resultTrust: "untrusted",
  async run(args, context) {
    requireConnectivity(context.store, "open the article");
    const article = await findArticle(args.id, context);
    return {
      id: article.id,
      title: article.title,
      topic: article.topic,
      source: article.source,
      published: stamp(article.publishedAt, context.timeZone),
      text: article.body,
      ...(article.link !== undefined ? { link: article.link } : {}),
    };
  },
});

const saveArticle = defineTool({
  name: "save_article",
  description: "Save a news article to read later.",
  input: z.object({
    id: z.string().trim().min(1).describe('The article id, e.g. "news-12".'),
  }),
  risk: "write",
  async run(args, context) {
    const article = await findArticle(args.id, context);
    const saved = savedCollection(context.store);
    if (saved.get(article.id)) return { saved: true, already: true, id: article.id, title: article.title };
    saved.put(article.id, { id: article.id, title: article.title, savedAt: context.now().toISOString() });
    return { saved: true, id: article.id, title: article.title, total_saved: saved.all().length };
  },
});

const listSaved = defineTool({
  name: "list_saved_articles",
  description: "List the news articles saved to read later.",
  input: z.object({}),
  risk: "read",
  resultTrust: "untrusted",
  run(_args, context) {
    const saved = savedCollection(context.store).all();
    return {
      count: saved.length,
      articles: saved.slice(-LIST_LIMIT).reverse().map((entry) => ({ id: entry.id, title: entry.title, saved: stamp(entry.savedAt, context.timeZone) })),
    };
  },
});

const removeSaved = defineTool({
  name: "remove_saved_article",
  description: "Remove an article from the saved list.",
  input: z.object({
    id: z.string().trim().min(1).describe('The article id, e.g. "news-12".'),
  }),
  risk: "write",
  run(args, context) {
    const id = args.id.trim().toLowerCase();
    const saved = savedCollection(context.store);
    if (!saved.delete(id)) {
      // A description instead of an id ("the bike lanes article"): name the saved articles it matches.
      const matching = itemsMatching(saved.all(), args.id, (candidate) => candidate.title).map((candidate) => candidate.id);
      throw new ToolError(
        "not_saved",
        `Article "${args.id}" is not in the saved list.${matching.length > 0 ? referenceHint(matching, "id") : " See the list with list_saved_articles."}`,
        referenceFix(matching, "id"),
      );
    }
    return { removed: true, id, total_saved: saved.all().length };
  },
});

export const newsApp: App = {
  name: NEWS_APP,
  group: "finding",
  title: "News",
  description: "Headlines by topic from a bundled feed (or a configured RSS feed); read, search and save articles.",
  tools: [getHeadlines, searchNews, readArticle, saveArticle, listSaved, removeSaved],
  attach(store, environment) {
    rememberProviders(store, environment);
  },
  seed(tx, environment) {
    const saved = savedCollection(tx);
    const now = environment.now();
    for (const article of offlineArticles(tx, now).filter((candidate) => candidate.topic === "local").slice(0, 2)) {
      saved.put(article.id, { id: article.id, title: article.title, savedAt: now.toISOString() });
    }
  },
  view(tx, environment) {
    const now = environment.now();
    const latest = offlineArticles(tx, now);
    const saved = savedCollection(tx).all();
    const lines = [`News — ${environment.providers.news_rss ? `RSS ${environment.providers.news_rss}` : "bundled feed"}`];
    for (const topic of NEWS_TOPICS) {
      const top = latest.find((article) => article.topic === topic);
      if (top) lines.push(`  [${topic}] ${top.title} (${top.source}, ${stamp(top.publishedAt, environment.timeZone)})`);
    }
    lines.push(`Saved to read later: ${saved.length}`, ...saved.map((entry) => `  ${entry.id}: ${entry.title}`));
    return {
      text: lines.join("\n"),
      data: { latest: latest.slice(0, 20).map((article) => headline(article, environment.timeZone)), saved },
    };
  },
};
