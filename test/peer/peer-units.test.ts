import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertLoopbackBootstrap, createDhtNode, parseBootstrapAddress } from "../../src/peer/bootstrap.js";
import { decodeInvite, encodeInvite, inviteQrCode } from "../../src/peer/invite.js";
import { decideOffload, DEFAULT_OFFLOAD_RULE } from "../../src/peer/offload-rule.js";
import { PeerBook, peerBookPath } from "../../src/peer/peer-book.js";
import { configuredProviders } from "../../src/config.js";
import { isLocalAddress, LentInternet, parseAllowedHost } from "../../src/peer/lent-internet.js";
import { checkWebFetchMessage, checkWebPage, encodeFrame, FRAME_KIND, FrameReader, MAX_LENT_PAGE_BYTES, toGenerateMessage } from "../../src/peer/protocol.js";
import { openWebVia, parseWebViaOption, peerNetwork } from "../../src/peer/run-model.js";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

describe("bootstrap guard", () => {
  it("accepts loopback nodes only, and no bootstrap at all is an error that says how to pass one", () => {
    expect(() => assertLoopbackBootstrap([{ host: "127.0.0.1", port: 49737 }, { host: "::1", port: 1 }, { host: "localhost", port: 2 }])).not.toThrow();
    expect(() => assertLoopbackBootstrap([])).toThrow(/--bootstrap <host:port>/);
    expect(() => assertLoopbackBootstrap([{ host: "127.0.0.1", port: 1 }, { host: "88.99.3.86", port: 49737 }])).toThrow(/not on loopback/);
    expect(() => assertLoopbackBootstrap([{ host: "node1.hyperdht.org", port: 49737 }])).toThrow(/not on loopback/);
    expect(parseBootstrapAddress("[::1]:5000")).toEqual({ host: "::1", port: 5000 });
    expect(() => parseBootstrapAddress("127.0.0.1")).toThrow(/host:port/);
  });

  it("is checked before any DHT node is made, from flags and from config.json alike", () => {
    expect(() => createDhtNode({ bootstrap: [] })).toThrow(/No DHT bootstrap/);
    expect(() => createDhtNode({ bootstrap: [{ host: "10.0.0.5", port: 49737 }] })).toThrow(/not on loopback/);
    expect(() => peerNetwork({}, {})).toThrow(/peer.bootstrap in BOTPSY_HOME\/config.json/);
    expect(() => peerNetwork({}, { peer: { bootstrap: ["192.168.1.2:49737"] } })).toThrow(/not on loopback/);
    expect(peerNetwork({ bootstrap: ["127.0.0.1:4000"] }, {}).bootstrap).toEqual([{ host: "127.0.0.1", port: 4000 }]);
  });
});

describe("invites", () => {
  it("round-trip as text and a terminal QR code, and refuse once expired or altered", async () => {
    const invite = { publicKey: Buffer.alloc(32, 7), secret: Buffer.alloc(16, 9), expiresAt: new Date("2026-12-01T10:00:00Z") };
    const text = encodeInvite(invite);
    const decoded = decodeInvite(text, new Date("2026-12-01T09:00:00Z"));
    expect(decoded.publicKey.equals(invite.publicKey)).toBe(true);
    expect(decoded.secret.equals(invite.secret)).toBe(true);
    expect(() => decodeInvite(text, new Date("2026-12-01T10:00:01Z"))).toThrow(/expired/);
    expect(() => decodeInvite(text.slice(0, -4))).toThrow(/cut short/);
    expect(() => decodeInvite("hello")).toThrow(/not a botpsy invite/);
    expect((await inviteQrCode(text)).split("\n").length).toBeGreaterThan(10);
  });

  it("are one-time and kept as hashes in a 0600 book", () => {
    const home = mkdtempSync(join(tmpdir(), "botpsy-peer-book-"));
    homes.push(home);
    const book = PeerBook.open(home);
    const { secret } = book.createInvite("phone", 60_000);
    expect(statSync(peerBookPath(home)).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(PeerBook.open(home))).not.toContain(secret.toString("hex"));
    const device = "ab".repeat(32);
    expect(book.redeemInvite(secret, device).name).toBe("phone");
    expect(() => book.redeemInvite(secret, device)).toThrow(/already used/);
    const late = book.createInvite("tablet", 1, new Date("2020-01-01T00:00:00Z"));
    expect(() => book.redeemInvite(late.secret, "cd".repeat(32))).toThrow(/expired/);
  });
});

describe("offload rule", () => {
  const local = { contextSize: 2048, sizeBytes: 100e6 };
  it("sends a turn away when it does not fit here, or when the lender's model is much larger and the job long", () => {
    expect(decideOffload({ promptTokens: 1800, maxTokens: 512 }, local, { id: "x", contextSize: 8192, sizeBytes: 100e6 }).where).toBe("peer");
    expect(decideOffload({ promptTokens: 1600, maxTokens: 256 }, local, { id: "x", contextSize: 8192, sizeBytes: 800e6 }).where).toBe("peer");
    expect(decideOffload({ promptTokens: 1600, maxTokens: 256 }, local, { id: "x", contextSize: 8192, sizeBytes: 300e6 }).where).toBe("local");
    expect(decideOffload({ promptTokens: 300, maxTokens: 256 }, local, { id: "x", contextSize: 8192, sizeBytes: 800e6 }).where).toBe("local");
    expect(decideOffload({ promptTokens: 300, maxTokens: 256 }, local, { id: "x", contextSize: 8192, sizeBytes: 800e6 }, { ...DEFAULT_OFFLOAD_RULE, longJobTokens: 200 }).where).toBe("peer");
  });
});

describe("frames", () => {
  it("carry a model turn's messages, tools and sampling options only, and a header a receiver can refuse unread", () => {
    const controller = new AbortController();
    const message = toGenerateMessage(
      1,
      { messages: [{ role: "user", content: "hi" }], tools: [{ name: "t", description: "d", parameters: { type: "object" } }], temperature: 0, signal: controller.signal, conversationId: "session-1" },
      "opaque",
    );
    expect(Object.keys(message).sort()).toEqual(["conversation", "id", "messages", "options", "tools"]);
    expect(message.options).toEqual({ temperature: 0 });
    const frames: unknown[] = [];
    const refusals: string[] = [];
    const reader = new FrameReader(
      (kind) => (kind === FRAME_KIND.generate ? "no model turns here" : undefined),
      (_kind, payload) => frames.push(payload),
      (reason) => refusals.push(reason),
    );
    const info = encodeFrame(FRAME_KIND.infoRequest, {});
    reader.push(info.subarray(0, 3));
    reader.push(info.subarray(3));
    // Only the header of the refused frame is needed to refuse it.
    reader.push(encodeFrame(FRAME_KIND.generate, message).subarray(0, 5));
    expect(frames).toEqual([{}]);
    expect(refusals).toEqual(["no model turns here"]);
  });
});

describe("lent internet rules", () => {
  it("knows the lender's own, local-network and link-local addresses, IPv4-mapped ones included", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.10", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fd00::5", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1"]) {
      expect(isLocalAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) expect(isLocalAddress(address), address).toBe(false);
  });

  it("takes allowed hosts as host:port with the port, and refuses anything else before the lender starts", () => {
    expect(parseAllowedHost("127.0.0.1:8080")).toBe("127.0.0.1:8080");
    expect(parseAllowedHost("[::1]:8080")).toBe("[::1]:8080");
    expect(parseAllowedHost("NAS.local:5000")).toBe("nas.local:5000");
    for (const text of ["127.0.0.1", "http://127.0.0.1:80", "127.0.0.1:80/path", "", "user@host:80"]) {
      expect(() => parseAllowedHost(text), text).toThrow(/host:port, e.g. 127.0.0.1:8080/);
    }
    expect(() => new LentInternet({ allowHosts: ["nas.local"] })).toThrow(/port is required/);
  });

  it("a web fetch frame is {id, url, accept?} only: a method, headers or a body are refused, and sizes are bounded", () => {
    expect(checkWebFetchMessage({ id: 3, url: "https://example.org/", accept: "text/html" })).toEqual({ id: 3, url: "https://example.org/", accept: "text/html" });
    expect(() => checkWebFetchMessage({ id: 3, url: "https://example.org/", method: "POST" })).toThrow(/only does GET/);
    expect(() => checkWebFetchMessage({ id: 3, url: "https://example.org/", headers: { cookie: "a" } })).toThrow(/nothing else/);
    expect(() => checkWebFetchMessage({ id: 3, url: `https://example.org/${"a".repeat(5000)}` })).toThrow(/"url"/);
    expect(() => checkWebFetchMessage({ id: 3, url: "https://example.org/", accept: "text/html\r\nx-evil: 1" })).toThrow(/"accept"/);
    expect(() => checkWebFetchMessage({ url: "https://example.org/" })).toThrow(/"id"/);
    expect(checkWebPage({ id: 1, status: 200, contentType: "text/html", body: "<p>hi</p>", bytes: 9 }).body).toBe("<p>hi</p>");
    expect(() => checkWebPage({ id: 1, status: 200, contentType: "text/html", body: "x".repeat(MAX_LENT_PAGE_BYTES + 1), bytes: MAX_LENT_PAGE_BYTES + 1 })).toThrow(/not a fetched page/);
    expect(() => checkWebPage({ id: 1, status: 200, contentType: "text/html", body: "hi", bytes: 2, cookies: "a" })).toThrow(/not a fetched page/);
  });

  it("--web-via takes here or a paired peer, and a peer needs a bootstrap, checked before any link opens", () => {
    const home = mkdtempSync(join(tmpdir(), "botpsy-web-via-"));
    homes.push(home);
    expect(openWebVia({ home })).toBeUndefined();
    expect(openWebVia({ home, webVia: "here" })).toBeUndefined();
    expect(() => parseWebViaOption(" ")).toThrow(/--web-via takes here or the name of a paired peer/);
    expect(() => parseWebViaOption("no such/peer")).toThrow(/is not a peer name/);
    expect(() => openWebVia({ home, webVia: "home" })).toThrow(/No peer is paired as "home".*--web-via here/);
    PeerBook.open(home).addLender("home", "ab".repeat(32));
    expect(() => openWebVia({ home, webVia: "home" })).toThrow(/No DHT bootstrap/);
    expect(openWebVia({ home, webVia: "home", bootstrap: ["127.0.0.1:9"] })).toBeDefined();
  });

  it("config.json providers are http(s) URLs under known keys", () => {
    expect(configuredProviders({})).toEqual({});
    expect(configuredProviders({ providers: { web_search: "https://search.example/api" } })).toEqual({ web_search: "https://search.example/api" });
    expect(() => configuredProviders({ providers: { websearch: "https://search.example/api" } })).toThrow(/not a provider; use web_search, weather, news_rss/);
    expect(() => configuredProviders({ providers: { weather: "ftp://weather.example" } })).toThrow(/must be an http:\/\/ or https:\/\/ URL/);
    expect(() => configuredProviders({ providers: ["https://x"] as unknown as Record<string, string> })).toThrow(/must be an object/);
  });
});
