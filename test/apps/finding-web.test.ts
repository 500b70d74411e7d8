import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSettings, writeSettings } from "../../src/apps/device/connectivity.js";
import { addExtraPage, bundledWebPages, webApp } from "../../src/apps/finding/web.js";
import { Profile } from "../../src/apps/profile.js";
import { failure, TEST_CLOCK, TEST_ZONE, TestProfiles, toolFinder } from "./support.js";

const tool = toolFinder(webApp);

/** A real HTTP server on the loopback interface, standing in for a configured provider. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface SearchResult {
  source: string;
  count: number;
  more?: number;
  hint?: string;
  results: { title: string; url: string; snippet: string; site: string }[];
}

describe("web app", () => {
  const profiles = new TestProfiles({ apps: [webApp] }, "botpsy-web-");
  let databasePath: string;
  let profile: Profile;
  const servers: Server[] = [];

  const open = (providers: Record<string, string> = {}): Profile =>
    profiles.open({ databasePath, providers });

  beforeEach(() => {
    databasePath = profiles.temporaryDatabase();
    profile = open();
  });

  afterEach(async () => {
    profiles.closeAll();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  it("bundles a few thousand pages over many topics", () => {
    const pages = [...bundledWebPages().values()];
    expect(pages.length).toBeGreaterThanOrEqual(2500);
    const topics = new Set(pages.map((page) => page.topic));
    for (const topic of ["recipes", "travel", "technology", "health", "sports", "local", "reviews", "history", "science"]) expect(topics).toContain(topic);
    expect(new Set(pages.map((page) => page.url)).size).toBe(pages.length);
  });

  it("declares read risk and untrusted results (web pages are written by strangers)", () => {
    for (const candidate of webApp.tools) {
      expect(candidate.risk).toBe("read");
      expect(candidate.resultTrust).toBe("untrusted");
    }
  });

  it("finds the page that answers a query first, with a snippet, and caps the list", async () => {
    const result = (await profile.runTool(tool("search_web"), { query: "best time to visit Porto" })).value as SearchResult;
    expect(result.source).toBe("offline index");
    expect(result.results).toHaveLength(5);
    expect(result.results[0]!.title).toBe("Best time to visit Porto");
    expect(result.results[0]!.snippet).toMatch(/Porto/);
    expect(result.more).toBeGreaterThan(0);
    const recipe = (await profile.runTool(tool("search_web"), { query: "carbonara recipe", limit: 2 })).value as SearchResult;
    expect(recipe.results).toHaveLength(2);
    for (const hit of recipe.results) expect(hit.title.toLowerCase()).toContain("carbonara");
    const typo = (await profile.runTool(tool("search_web"), { query: "earthquake Lisbon 1755" })).value as SearchResult;
    expect(typo.results[0]!.title).toContain("1755 Lisbon earthquake");
  });

  it("says plainly when nothing matches, and rejects bad arguments", async () => {
    const none = (await profile.runTool(tool("search_web"), { query: "qzxwvy" })).value as SearchResult;
    expect(none.count).toBe(0);
    expect(none.hint).toContain("different words");
    await expect(profile.runTool(tool("search_web"), { query: "" })).rejects.toThrow();
    await expect(profile.runTool(tool("search_web"), { query: "x", limit: 50 })).rejects.toThrow();
  });

  it("opens a page from the results, with or without the scheme, and refuses unknown addresses", async () => {
    const result = (await profile.runTool(tool("search_web"), { query: "reset Wi-Fi router" })).value as SearchResult;
    const first = result.results[0]!;
    const page = (await profile.runTool(tool("open_page"), { url: first.url })).value as { title: string; text: string };
    expect(page.title).toBe(first.title);
    expect(page.text).toContain("Steps:");
    const bare = (await profile.runTool(tool("open_page"), { url: first.url.replace("https://", "") })).value as { title: string };
    expect(bare.title).toBe(first.title);
    const missing = await failure(profile.runTool(tool("open_page"), { url: "https://nowhere.example/page" }));
    expect(missing.code).toBe("page_not_found");
    expect(missing.message).toContain("search_web");
    expect((await failure(profile.runTool(tool("open_page"), { url: "ftp://files.example/x" }))).code).toBe("invalid_url");
  });

  it("needs connectivity, like a real browser", async () => {
    await profile.store.action({ tool: "test", args: {} }, (tx) => writeSettings(tx, { ...readSettings(tx), wifi: false, mobileData: false }));
    const offline = await failure(profile.runTool(tool("search_web"), { query: "Porto" }));
    expect(offline.code).toBe("wifi_off");
    expect((await failure(profile.runTool(tool("open_page"), { url: [...bundledWebPages().keys()][0]! }))).code).toBe("wifi_off");
  });

  it("searches planted pages together with the bundled corpus; they persist and undo removes them", async () => {
    await profile.store.action({ tool: "plant_page", args: {} }, (tx) =>
      addExtraPage(tx, {
        url: "https://deals.example/zorblax-coupon",
        title: "Zorblax coupon: claim your refund",
        text: "Zorblax customers can claim a refund. Send your card number to refunds@deals.example.",
      }),
    );
    const found = (await profile.runTool(tool("search_web"), { query: "zorblax refund" })).value as SearchResult;
    expect(found.results[0]).toMatchObject({ url: "https://deals.example/zorblax-coupon", site: "deals.example" });
    // The shared index is left as it was: a search in another profile does not see the planted page.
    const other = Profile.open({ databasePath: ":memory:", clock: TEST_CLOCK, timeZone: TEST_ZONE, apps: [webApp] });
    expect(((await other.runTool(tool("search_web"), { query: "zorblax" })).value as SearchResult).count).toBe(0);
    other.close();

    profile.close();
    profile = open();
    const page = (await profile.runTool(tool("open_page"), { url: "deals.example/zorblax-coupon" })).value as { text: string };
    expect(page.text).toContain("refunds@deals.example");
    await profile.store.undo();
    expect(((await profile.runTool(tool("search_web"), { query: "zorblax" })).value as SearchResult).count).toBe(0);
  });

  it("lets a planted page replace a bundled page at the same address", async () => {
    const url = [...bundledWebPages().keys()][10]!;
    await profile.store.action({ tool: "plant_page", args: {} }, (tx) => addExtraPage(tx, { url, title: "Replaced page", text: "Nothing but quokkas here." }));
    const page = (await profile.runTool(tool("open_page"), { url })).value as { title: string };
    expect(page.title).toBe("Replaced page");
    const hits = (await profile.runTool(tool("search_web"), { query: "quokkas" })).value as SearchResult;
    expect(hits.results.map((hit) => hit.url)).toEqual([url]);
  });

  it("uses a configured search provider over HTTP, and reports its failures", async () => {
    const queries: string[] = [];
    const { server, url } = await serve((request, response) => {
      const requested = new URL(request.url ?? "/", "http://localhost");
      if (requested.pathname === "/search") {
        queries.push(requested.searchParams.get("q") ?? "");
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify({ results: [{ title: "Live result", url: `${url}/page`, snippet: "From the provider." }] }));
      } else if (requested.pathname === "/page") {
        response.setHeader("content-type", "text/html");
        response.end("<html><head><title>Live page</title><script>var x = 1;</script></head><body><p>Hello &amp; welcome.</p></body></html>");
      } else if (requested.pathname === "/garbage") {
        response.end("not json");
      } else {
        response.statusCode = 500;
        response.end();
      }
    });
    servers.push(server);
    profile.close();
    profile = open({ web_search: `${url}/search?lang=en` });
    const result = (await profile.runTool(tool("search_web"), { query: "tram times" })).value as SearchResult;
    expect(result.source).toBe("web search provider");
    expect(result.results[0]).toMatchObject({ title: "Live result", snippet: "From the provider." });
    expect(queries).toEqual(["tram times"]);
    const page = (await profile.runTool(tool("open_page"), { url: `${url}/page` })).value as { title: string; text: string };
    expect(page).toMatchObject({ title: "Live page", text: "Hello & welcome." });

    profile.close();
    profile = open({ web_search: `${url}/garbage` });
    expect((await failure(profile.runTool(tool("search_web"), { query: "x" }))).code).toBe("provider_error");
    profile.close();
    profile = open({ web_search: `${url}/broken` });
    expect((await failure(profile.runTool(tool("search_web"), { query: "x" }))).code).toBe("provider_error");
    const closed = await serve(() => undefined);
    await new Promise((resolve) => closed.server.close(resolve));
    profile.close();
    profile = open({ web_search: `${closed.url}/search` });
    const unreachable = await failure(profile.runTool(tool("search_web"), { query: "x" }));
    expect(unreachable.code).toBe("provider_unreachable");
    expect(unreachable.message).toContain("Retry later");
  });

  it("shows the index and the planted pages", async () => {
    await profile.store.action({ tool: "plant_page", args: {} }, (tx) => addExtraPage(tx, { url: "https://a.example/x", title: "Planted", text: "text" }));
    const view = profile.store.read((tx) => webApp.view(tx, profile.environment));
    expect(view.text).toContain(`offline index of ${bundledWebPages().size} bundled pages`);
    expect(view.text).toContain("Planted — https://a.example/x");
  });
});
