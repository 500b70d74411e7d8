import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import createTestnet, { type Testnet } from "@hyperswarm/testnet";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import type { AgentEvent } from "../../src/agent/types.js";
import { Profile } from "../../src/apps/profile.js";
import { assertLoopbackBootstrap, type PeerNetworkOptions } from "../../src/peer/bootstrap.js";
import { LentInternet, type LendInternetOptions } from "../../src/peer/lent-internet.js";
import { PeerBook } from "../../src/peer/peer-book.js";
import { PeerClient } from "../../src/peer/peer-client.js";
import { PeerServer } from "../../src/peer/peer-server.js";
import { readReceivedLog } from "../support/peer-log.js";
import { PeerWebFetcher } from "../../src/peer/web-via-peer.js";
import { assembleRuntime } from "../../src/runtime.js";
import { ScriptedModel, TEST_CLOCK } from "../../src/testing/index.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * A lender that lends its internet (`peer serve --lend-internet`) and a
 * device whose web tools go out through it (`run --web-via home`), on a
 * local testnet (every DHT node on 127.0.0.1, the bootstrap checked to be
 * loopback). The web is a fixture HTTP server on 127.0.0.1: the lender may
 * reach it only because the test allows its host:port, as
 * --lend-internet-allow-host would. The device's own `fetch` is replaced by
 * one that fails the test, so a page that arrives came through the lender.
 */
let testnet: Testnet;
let network: PeerNetworkOptions;

interface Fixture {
  server: Server;
  origin: string;
  hostPort: string;
  /** Every request the fixture received: path and User-Agent. */
  requests: { path: string; userAgent: string }[];
  /** Called when a request for /slow arrives (it is never answered). */
  onSlow?: () => void;
}

const PAGE_HTML = "<html><head><title>Porto in spring</title></head><body><p>Porto is best from April to June: mild days, few crowds.</p></body></html>";

async function startFixture(handler?: (request: IncomingMessage, response: ServerResponse, fixture: Fixture) => boolean): Promise<Fixture> {
  const fixture: Fixture = { server: createServer(), origin: "", hostPort: "", requests: [] };
  fixture.server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", fixture.origin);
    fixture.requests.push({ path: url.pathname, userAgent: String(request.headers["user-agent"] ?? "") });
    if (handler?.(request, response, fixture) === true) return;
    if (url.pathname === "/search") {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify([{ title: "Porto in spring", url: `${fixture.origin}/porto`, snippet: `Results for ${url.searchParams.get("q")}` }]));
    } else if (url.pathname === "/porto") {
      response.setHeader("content-type", "text/html");
      response.end(PAGE_HTML);
    } else if (url.pathname === "/big") {
      response.setHeader("content-length", String(3 * 1024 * 1024));
      response.end(Buffer.alloc(3 * 1024 * 1024, 0x61));
    } else if (url.pathname === "/big-chunked") {
      // No content-length: the cap is found while reading.
      for (let index = 0; index < 24; index++) response.write(Buffer.alloc(128 * 1024, 0x62));
      response.end();
    } else if (url.pathname === "/slow") {
      fixture.onSlow?.();
    } else {
      response.statusCode = 404;
      response.end("not found");
    }
  });
  await new Promise<void>((resolve) => fixture.server.listen(0, "127.0.0.1", resolve));
  const port = (fixture.server.address() as AddressInfo).port;
  fixture.origin = `http://127.0.0.1:${port}`;
  fixture.hostPort = `127.0.0.1:${port}`;
  return fixture;
}

function newHome(): string {
  return makeTempDir("botpsy-lend-internet-");
}

const received = readReceivedLog;

interface Lender {
  server: PeerServer;
  home: string;
  log: string;
}

async function startLender(lendInternet?: LendInternetOptions): Promise<Lender> {
  const home = newHome();
  const log = join(home, "received.jsonl");
  const model = new ScriptedModel(["never played"]);
  const server = await PeerServer.start({
    book: PeerBook.open(home),
    model,
    modelInfo: { id: model.id, contextSize: 8192, sizeBytes: 1e9 },
    network,
    receivedLogPath: log,
    revocationCheckMs: 100,
    ...(lendInternet !== undefined ? { lendInternet } : {}),
  });
  return { server, home, log };
}

/** Pairs a new device home with the lender as "home" (the lender calls it "phone"). */
async function pairDevice(lender: Lender): Promise<PeerBook> {
  const { secret } = PeerBook.open(lender.home).createInvite("phone", 60_000);
  const book = PeerBook.open(newHome());
  const { client } = await PeerClient.connectAnd({ book, publicKey: lender.server.publicKey, network }, (opened) => opened.pair(secret));
  await client.close();
  book.addLender("home", lender.server.publicKey);
  return book;
}

function connect(book: PeerBook, lender: Lender): Promise<PeerClient> {
  return PeerClient.connectAnd({ book, publicKey: lender.server.publicKey, network, connectTimeoutMs: 4000 }, (opened) => opened.info()).then((opened) => opened.client);
}

function fetcherFor(book: PeerBook, lender: Lender): PeerWebFetcher {
  return new PeerWebFetcher({ lenderName: "home", connect: () => connect(book, lender) });
}

/** A page server, a lender (lending as `lend` says, given the server), and a paired device whose web requests go through it. */
async function startDevice(lend: (fixture: Fixture) => LendInternetOptions | undefined): Promise<{ fixture: Fixture; lender: Lender; fetcher: PeerWebFetcher; profile: Profile; close(): Promise<void> }> {
  const fixture = await startFixture();
  const lender = await startLender(lend(fixture));
  const fetcher = fetcherFor(await pairDevice(lender), lender);
  const profile = deviceProfile(fixture, fetcher);
  return {
    fixture,
    lender,
    fetcher,
    profile,
    async close() {
      profile.close();
      await fetcher.close();
      await lender.server.close();
      fixture.server.close();
    },
  };
}

/** The device's profile, its web provider on the fixture, its web requests through `fetcher`. */
function deviceProfile(fixture: Fixture, fetcher: PeerWebFetcher): Profile {
  const home = newHome();
  return Profile.open({
    home,
    databasePath: join(home, "device.db"),
    seed: "demo",
    clock: TEST_CLOCK,
    timeZone: "UTC",
    providers: { web_search: `${fixture.origin}/search` },
    webFetcher: fetcher.fetch,
  });
}

async function runAgent(profile: Profile, model: ScriptedModel, request: string): Promise<AgentEvent[]> {
  const tools = profile.tools().filter((tool) => tool.name === "search_web" || tool.name === "open_page");
  const runtime = assembleRuntime({ profile, model, tools, safety: { approveAll: true }, agent: { maxSteps: 4 } });
  const events: AgentEvent[] = [];
  const run = runtime.run(request);
  for await (const event of run) events.push(event);
  await run.outcome;
  return events;
}

interface ToolOutcome {
  name: string;
  result?: unknown;
  error?: { code: string; message: string };
}

function toolOutcomes(events: AgentEvent[]): ToolOutcome[] {
  return events.flatMap((event): ToolOutcome[] => {
    if (event.type === "tool-result") return [{ name: event.call.name, result: event.result }];
    if (event.type === "tool-error") return [{ name: event.call.name, error: event.error }];
    return [];
  });
}

let ownFetch: MockInstance<typeof fetch>;

beforeAll(async () => {
  testnet = await createTestnet(3, { host: "127.0.0.1" });
  assertLoopbackBootstrap(testnet.bootstrap);
  network = { bootstrap: testnet.bootstrap };
}, 60_000);

beforeEach(() => {
  // The device's own network: any use of it fails the test. The lender fetches with node:http, not fetch.
  ownFetch = vi.spyOn(globalThis, "fetch").mockImplementation(() => Promise.reject(new Error("the device's own network was used")));
});

afterEach(() => {
  ownFetch.mockRestore();
});

afterAll(async () => {
  await testnet?.destroy();
});

describe("lent internet (peer serve --lend-internet, run --web-via)", () => {
  it("the device's search_web and open_page go out from the lender, never from the device's own network", async () => {
    const device = await startDevice((fixture) => ({ allowHosts: [fixture.hostPort] }));
    const { fixture, lender, profile } = device;
    try {
      const model = new ScriptedModel([
        { toolCalls: [{ name: "search_web", arguments: { query: "best time to visit Porto" } }] },
        { toolCalls: [{ name: "open_page", arguments: { url: `${fixture.origin}/porto` } }] },
        "April to June.",
      ]);
      const outcomes = toolOutcomes(await runAgent(profile, model, "When should I visit Porto?"));
      expect(outcomes.map((outcome) => outcome.error)).toEqual([undefined, undefined]);
      const search = outcomes[0]!.result as { source: string; results: { url: string; snippet: string }[] };
      expect(search.source).toBe("web search provider");
      expect(search.results).toEqual([expect.objectContaining({ url: `${fixture.origin}/porto`, snippet: "Results for best time to visit Porto" })]);
      const page = outcomes[1]!.result as { title: string; text: string };
      expect(page.title).toBe("Porto in spring");
      expect(page.text).toContain("Porto is best from April to June");

      // Both requests reached the web from the lender (its User-Agent), none from the device.
      expect(ownFetch).not.toHaveBeenCalled();
      expect(fixture.requests.map((request) => request.path)).toEqual(["/search", "/porto"]);
      expect(fixture.requests.every((request) => request.userAgent.startsWith("botpsy-peer"))).toBe(true);

      // The lender recorded what it fetched, for whom, and how many bytes went back.
      const fetches = received(lender.log).filter((entry) => entry.event === "web-fetch");
      expect(fetches).toEqual([
        expect.objectContaining({ from: "phone", url: `${fixture.origin}/search?q=best+time+to+visit+Porto`, status: 200, bytes: expect.any(Number) }),
        expect.objectContaining({ from: "phone", url: `${fixture.origin}/porto`, status: 200, bytes: Buffer.byteLength(PAGE_HTML) }),
      ]);
      expect(fetches.every((entry) => entry.event === "web-fetch" && entry.refused === undefined)).toBe(true);
    } finally {
      await device.close();
    }
  }, 60_000);

  it("a lender that does not lend its internet refuses, and the tool says so and what to do", async () => {
    const device = await startDevice(() => undefined);
    const { fixture, lender, profile } = device;
    try {
      const model = new ScriptedModel([{ toolCalls: [{ name: "search_web", arguments: { query: "porto" } }] }, "I could not search."]);
      const outcomes = toolOutcomes(await runAgent(profile, model, "Search the web for Porto"));
      expect(outcomes).toHaveLength(1);
      expect(outcomes[0]!.error?.code).toBe("peer_internet_not_lent");
      expect(outcomes[0]!.error?.message).toMatch(/does not lend its internet.*--lend-internet/);
      expect(outcomes[0]!.error?.message).toMatch(/own network is not used instead/);
      expect(ownFetch).not.toHaveBeenCalled();
      expect(fixture.requests).toEqual([]);
      expect(received(lender.log).filter((entry) => entry.event === "web-fetch")).toEqual([
        expect.objectContaining({ from: "phone", url: `${fixture.origin}/search?q=porto`, bytes: 0, refused: expect.objectContaining({ code: "peer_internet_not_lent" }) }),
      ]);
    } finally {
      await device.close();
    }
  }, 60_000);

  it("refuses unknown and removed devices as it refuses their model turns", async () => {
    const fixture = await startFixture();
    const lender = await startLender({ allowHosts: [fixture.hostPort] });
    try {
      // Unknown, no invite pending: the firewall refuses the key; no connection, no fetch.
      const stranger = PeerBook.open(newHome());
      await expect(PeerClient.connect({ book: stranger, publicKey: lender.server.publicKey, network, connectTimeoutMs: 4000 })).rejects.toThrow();
      // Paired, then removed by botpsy peer rm: its link is cut and it cannot come back.
      const book = await pairDevice(lender);
      const client = await connect(book, lender);
      expect((await client.fetchWeb(`${fixture.origin}/porto`)).status).toBe(200);
      PeerBook.open(lender.home).remove("phone");
      const started = Date.now();
      while (!client.closed && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(client.fetchWeb(`${fixture.origin}/porto`)).rejects.toThrow(/gone|broke off/);
      await client.close();
      await expect(PeerClient.connect({ book, publicKey: lender.server.publicKey, network, connectTimeoutMs: 4000 })).rejects.toThrow();
      expect(received(lender.log).some((entry) => entry.event === "refused" && entry.reason === "removed from the peer book")).toBe(true);

      // Unknown while an invite is pending: it may send only its pair frame; a web fetch closes the link unread.
      PeerBook.open(lender.home).createInvite("other", 60_000);
      const pairing = await PeerClient.connect({ book: PeerBook.open(newHome()), publicKey: lender.server.publicKey, network });
      await expect(pairing.fetchWeb(`${fixture.origin}/porto`)).rejects.toThrow(/broke off|closed/);
      await pairing.close();
      expect(readFileSync(lender.log, "utf8")).toContain("a frame other than pair from a device that is not paired");
      expect(fixture.requests.map((request) => request.path)).toEqual(["/porto"]);
      expect(ownFetch).not.toHaveBeenCalled();
    } finally {
      await lender.server.close();
      fixture.server.close();
    }
  }, 90_000);

  it("never fetches the lender's own or local-network addresses unless allowed, redirects included", async () => {
    // The lender's own service on loopback (an SSRF target), and a public-looking site that redirects to it.
    const localService = await startFixture();
    const site = await startFixture((request, response) => {
      if (request.url !== "/redirect") return false;
      response.statusCode = 302;
      response.setHeader("location", `${localService.origin}/porto`);
      response.end();
      return true;
    });
    const lender = await startLender({ allowHosts: [site.hostPort] });
    const client = await connect(await pairDevice(lender), lender);
    try {
      const port = localService.hostPort.split(":")[1];
      const refused = [
        `${localService.origin}/porto`,
        `http://localhost:${port}/porto`,
        `http://[::1]:${port}/porto`,
        `http://[::ffff:127.0.0.1]:${port}/porto`,
        `http://2130706433:${port}/porto`,
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1/admin",
        "http://0.0.0.0/",
      ];
      for (const url of refused) {
        await expect(client.fetchWeb(url), url).rejects.toMatchObject({ code: "peer_web_refused", message: expect.stringMatching(/own or a local-network address.*--lend-internet-allow-host/) });
      }
      await expect(client.fetchWeb("file:///etc/passwd")).rejects.toMatchObject({ code: "peer_web_refused", message: expect.stringMatching(/only http:\/\/ and https:\/\//) });
      await expect(client.fetchWeb(`http://user:secret@${site.hostPort}/porto`)).rejects.toMatchObject({ code: "peer_web_refused" });
      // An allowed host that redirects to a local one: the redirect is checked like the first URL.
      await expect(client.fetchWeb(`${site.origin}/redirect`)).rejects.toMatchObject({ code: "peer_web_refused" });
      expect(site.requests.map((request) => request.path)).toEqual(["/redirect"]);
      expect(localService.requests).toEqual([]);
      // The link is still good: the allowed host is fetched.
      expect((await client.fetchWeb(`${site.origin}/porto`)).body).toBe(PAGE_HTML);
      const refusals = received(lender.log).filter((entry) => entry.event === "web-fetch" && entry.refused !== undefined);
      expect(refusals).toHaveLength(refused.length + 3);
    } finally {
      await client.close();
      await lender.server.close();
      localService.server.close();
      site.server.close();
    }
  }, 60_000);

  it("refuses an answer over the size cap cleanly, sends none of it, keeps the link, and caps fetches running at once", async () => {
    const fixture = await startFixture();
    const lender = await startLender({ allowHosts: [fixture.hostPort] });
    const client = await connect(await pairDevice(lender), lender);
    try {
      const bytesBefore = client.bytesReceived;
      await expect(client.fetchWeb(`${fixture.origin}/big`)).rejects.toMatchObject({ code: "peer_web_too_large", message: expect.stringMatching(/3145728 bytes, over the 2097152-byte limit/) });
      await expect(client.fetchWeb(`${fixture.origin}/big-chunked`)).rejects.toMatchObject({ code: "peer_web_too_large", message: expect.stringMatching(/more than 2097152 bytes/) });
      expect(client.bytesReceived - bytesBefore).toBeLessThan(4096);
      expect(client.closed).toBe(false);
      expect((await client.fetchWeb(`${fixture.origin}/porto`)).status).toBe(200);
      // At most four fetches of one device run at once; a fifth is refused, not queued.
      const slow = [1, 2, 3, 4].map(() => client.fetchWeb(`${fixture.origin}/slow`).catch((error: unknown) => error));
      await expect(client.fetchWeb(`${fixture.origin}/porto`)).rejects.toMatchObject({ code: "peer_web_busy", message: expect.stringMatching(/wait for one to finish/) });
      await client.close();
      expect(await Promise.all(slow)).toEqual([1, 2, 3, 4].map(() => expect.objectContaining({ code: "peer_link_closed" })));
      expect(received(lender.log).filter((entry) => entry.event === "web-fetch").map((entry) => (entry.event === "web-fetch" ? (entry.refused?.code ?? entry.status) : undefined)).slice(0, 4)).toEqual([
        "peer_web_too_large",
        "peer_web_too_large",
        200,
        "peer_web_busy",
      ]);
    } finally {
      await client.close();
      await lender.server.close();
      fixture.server.closeAllConnections();
      fixture.server.close();
    }
  }, 60_000);

  it("gives up on a page that does not answer within the lender's timeout, or the device's", async () => {
    const fixture = await startFixture();
    try {
      const internet = new LentInternet({ allowHosts: [fixture.hostPort], timeoutMs: 300 });
      const started = Date.now();
      await expect(internet.fetch(`${fixture.origin}/slow`, undefined, new AbortController().signal)).rejects.toMatchObject({
        code: "peer_web_timeout",
        message: expect.stringMatching(/did not answer the lender within 300 ms/),
      });
      expect(Date.now() - started).toBeLessThan(5000);

      // The device's own time limit on a web request ends a fetch through a peer too, and says so.
      const lender = await startLender({ allowHosts: [fixture.hostPort] });
      const fetcher = fetcherFor(await pairDevice(lender), lender);
      try {
        await expect(fetcher.fetch({ url: `${fixture.origin}/slow`, accept: "text/html", signal: AbortSignal.timeout(500) })).rejects.toMatchObject({
          name: "ToolError",
          code: "peer_web_timeout",
          message: expect.stringMatching(/did not answer through peer home in the time a web request has/),
        });
        const stop = new AbortController();
        const stopped = fetcher.fetch({ url: `${fixture.origin}/slow`, accept: "text/html", signal: stop.signal });
        setTimeout(() => stop.abort(), 200);
        await expect(stopped).rejects.toMatchObject({ code: "peer_web_cancelled" });
        expect(ownFetch).not.toHaveBeenCalled();
      } finally {
        await fetcher.close();
        await lender.server.close();
      }
    } finally {
      fixture.server.closeAllConnections();
      fixture.server.close();
    }
  }, 60_000);

  it("a lender gone mid-fetch is a clear tool error; the device's own network is not tried", async () => {
    const fixture = await startFixture();
    const lender = await startLender({ allowHosts: [fixture.hostPort] });
    const fetcher = fetcherFor(await pairDevice(lender), lender);
    const profile = deviceProfile(fixture, fetcher);
    // The lender stops while it waits for the page.
    let stopped: Promise<void> | undefined;
    fixture.onSlow = () => {
      stopped = lender.server.close();
    };
    try {
      const model = new ScriptedModel([
        { toolCalls: [{ name: "search_web", arguments: { query: "porto" } }] },
        { toolCalls: [{ name: "open_page", arguments: { url: `${fixture.origin}/slow` } }] },
        { toolCalls: [{ name: "open_page", arguments: { url: `${fixture.origin}/porto` } }] },
        "The page could not be opened.",
      ]);
      const outcomes = toolOutcomes(await runAgent(profile, model, "Open the Porto page"));
      expect(outcomes.map((outcome) => outcome.error?.code)).toEqual([undefined, "peer_web_unavailable", "peer_web_unavailable"]);
      expect(outcomes[1]!.error?.message).toMatch(/goes through peer home.*cannot be reached.*own network is not used instead/);
      expect(ownFetch).not.toHaveBeenCalled();
      expect(fixture.requests.map((request) => request.path)).toEqual(["/search", "/slow"]);
      // The run went on to its answer after the errors.
      expect(model.requests).toHaveLength(4);
    } finally {
      profile.close();
      await fetcher.close();
      await (stopped ?? lender.server.close());
      fixture.server.closeAllConnections();
      fixture.server.close();
    }
  }, 90_000);
});
