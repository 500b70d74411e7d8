import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import createTestnet, { type Testnet } from "@hyperswarm/testnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertLoopbackBootstrap, type PeerNetworkOptions } from "../../src/peer/bootstrap.js";
import { PeerBook } from "../../src/peer/peer-book.js";
import { PeerClient } from "../../src/peer/peer-client.js";
import { PeerServer } from "../../src/peer/peer-server.js";
import { readReceivedLog } from "../support/peer-log.js";
import { ScriptedModel } from "../../src/testing/index.js";

/**
 * The peer link's protocol on a local testnet (every DHT node on
 * 127.0.0.1, bootstrap checked to be loopback), with a ScriptedModel as the
 * lent model: pairing with a one-time invite, refusals of unknown and
 * removed keys, and what a device that is only pairing may send.
 */
let testnet: Testnet;
let network: PeerNetworkOptions;
const homes: string[] = [];

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), "botpsy-peer-link-"));
  homes.push(home);
  return home;
}

const received = readReceivedLog;

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startLender(model: ScriptedModel): Promise<{ server: PeerServer; home: string; log: string }> {
  const home = newHome();
  const log = join(home, "received.jsonl");
  const server = await PeerServer.start({ book: PeerBook.open(home), model, modelInfo: { id: model.id, contextSize: 8192, sizeBytes: 1e9 }, network, receivedLogPath: log, revocationCheckMs: 100 });
  return { server, home, log };
}

async function pairDevice(lender: { server: PeerServer; home: string }, deviceName: string): Promise<{ book: PeerBook; client: PeerClient }> {
  const { secret } = PeerBook.open(lender.home).createInvite(deviceName, 60_000);
  const book = PeerBook.open(newHome());
  const client = await PeerClient.connect({ book, publicKey: lender.server.publicKey, network });
  const paired = await client.pair(secret);
  expect(paired.name).toBe(deviceName);
  book.addLender("home", lender.server.publicKey);
  return { book, client };
}

beforeAll(async () => {
  testnet = await createTestnet(3, { host: "127.0.0.1" });
  assertLoopbackBootstrap(testnet.bootstrap);
  network = { bootstrap: testnet.bootstrap };
}, 60_000);

afterAll(async () => {
  await testnet?.destroy();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

describe("peer link (ScriptedModel as the lent model)", () => {
  it("pairs with a one-time invite, then plays model turns; the invite does not work twice", async () => {
    const model = new ScriptedModel(["hello from the lender"]);
    const lender = await startLender(model);
    try {
      const { secret } = PeerBook.open(lender.home).createInvite("phone", 60_000);
      const device = PeerBook.open(newHome());
      const client = await PeerClient.connect({ book: device, publicKey: lender.server.publicKey, network });
      expect((await client.pair(secret)).name).toBe("phone");
      const borrowers = PeerBook.open(lender.home).borrowers();
      expect(borrowers).toEqual([expect.objectContaining({ name: "phone", publicKey: device.publicKey })]);
      const result = await client.generate({ messages: [{ role: "user", content: "hi" }] });
      expect(result.text).toBe("hello from the lender");
      await client.close();

      // The same secret from another device: no invite is pending, so its key is refused outright.
      const other = PeerBook.open(newHome());
      await expect(PeerClient.connect({ book: other, publicKey: lender.server.publicKey, network, connectTimeoutMs: 5000 }).then((c) => c.pair(secret))).rejects.toThrow();
      expect(PeerBook.open(lender.home).borrowers()).toHaveLength(1);
    } finally {
      await lender.server.close();
    }
  }, 60_000);

  it("refuses an unknown key in the firewall: no connection, nothing received", async () => {
    const model = new ScriptedModel(["never played"]);
    const lender = await startLender(model);
    try {
      const stranger = PeerBook.open(newHome());
      await expect(PeerClient.connect({ book: stranger, publicKey: lender.server.publicKey, network, connectTimeoutMs: 5000 })).rejects.toThrow();
      const entries = received(lender.log);
      expect(entries.some((entry) => entry.event === "refused" && entry.from === stranger.publicKey)).toBe(true);
      expect(entries.filter((entry) => entry.event === "generate")).toEqual([]);
      expect(model.requests).toEqual([]);
    } finally {
      await lender.server.close();
    }
  }, 60_000);

  it("refuses a model turn from a device that is only pairing, from its frame header", async () => {
    const model = new ScriptedModel(["never played"]);
    const lender = await startLender(model);
    try {
      PeerBook.open(lender.home).createInvite("phone", 60_000);
      const device = PeerBook.open(newHome());
      const client = await PeerClient.connect({ book: device, publicKey: lender.server.publicKey, network });
      await expect(client.generate({ messages: [{ role: "user", content: "SECRET PROMPT" }] })).rejects.toThrow(/broke off|closed/);
      await client.close();
      expect(model.requests).toEqual([]);
      const log = readFileSync(lender.log, "utf8");
      expect(log).toContain("a frame other than pair from a device that is not paired");
      expect(log).not.toContain("SECRET PROMPT");
    } finally {
      await lender.server.close();
    }
  }, 60_000);

  it("cuts off a removed peer at once: its live link closes and it cannot reconnect", async () => {
    const model = new ScriptedModel(["first"], { whenExhausted: "repeat-last" });
    const lender = await startLender(model);
    try {
      const { book, client } = await pairDevice(lender, "phone");
      expect((await client.generate({ messages: [{ role: "user", content: "one" }] })).text).toBe("first");
      // Another process (botpsy peer rm) edits the book.
      PeerBook.open(lender.home).remove("phone");
      await until(() => client.closed);
      await expect(client.generate({ messages: [{ role: "user", content: "two" }] })).rejects.toThrow();
      await expect(PeerClient.connect({ book, publicKey: lender.server.publicKey, network, connectTimeoutMs: 5000 })).rejects.toThrow();
      expect(model.requests.map((request) => request.messages.at(-1)?.content)).toEqual(["one"]);
      expect(received(lender.log).some((entry) => entry.event === "refused" && entry.reason === "removed from the peer book")).toBe(true);
      await client.close();
    } finally {
      await lender.server.close();
    }
  }, 60_000);
});
