import type { ChildProcess } from "node:child_process";
import createTestnet, { type Testnet } from "@hyperswarm/testnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertLoopbackBootstrap } from "../../src/peer/bootstrap.js";
import { runCli } from "../support/cli-process.js";
import { startLenderProcess } from "../support/lender-process.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * `botpsy peer serve` in a process of its own on a local testnet (every DHT
 * node on 127.0.0.1, the bootstrap checked to be loopback), and a paired
 * device whose `botpsy peer ping` runs open one new link after another, each
 * from a process of its own, as each `botpsy run --offload` does. The lender
 * names an `openai:` model that is never asked: only the link is tested.
 *
 * A lender whose DHT node started as "firewalled" (it never learns
 * otherwise on a network of four nodes) made every device holepunch to it
 * over loopback, and more than half of the new links opened on the device
 * while the lender never got them: the run's first turn waited for the
 * link to time out (13 s), and a run whose three tries all hung ran its
 * turns locally.
 */
let testnet: Testnet;
let bootstrap: string;
let lender: ChildProcess | undefined;
let lenderKey: string;
let deviceHome: string;

beforeAll(async () => {
  testnet = await createTestnet(3, { host: "127.0.0.1" });
  assertLoopbackBootstrap(testnet.bootstrap);
  bootstrap = `${testnet.bootstrap[0]!.host}:${testnet.bootstrap[0]!.port}`;
  const lenderHome = makeTempDir("botpsy-links-lender-");
  deviceHome = makeTempDir("botpsy-links-device-");
  const started = await startLenderProcess(lenderHome, ["--model", "openai:http://127.0.0.1:9/v1#never-asked", "--bootstrap", bootstrap]);
  lender = started.child;
  lenderKey = started.publicKey;
  const invite = await runCli(lenderHome, ["peer", "invite", "--name", "phone", "--no-qr"], 60_000);
  expect(invite.code).toBe(0);
  const inviteText = /^(botpsy-invite1-\S+)$/m.exec(invite.stdout)![1]!;
  const paired = await runCli(deviceHome, ["peer", "pair", inviteText, "--name", "home", "--bootstrap", bootstrap], 60_000);
  expect(paired.stderr, `lender said: ${started.output()}`).toBe("");
  expect(paired.stdout).toContain('Paired with "home"');
}, 120_000);

afterAll(async () => {
  lender?.kill("SIGKILL");
  await testnet?.destroy();
});

describe("a paired device's new links to a lender on loopback", () => {
  it("botpsy peer ping: each run opens its link on the first try and brings the lender's answer back", async () => {
    const links: unknown[] = [];
    for (let run = 1; run <= 6; run++) {
      // A process of its own each time, as each `botpsy run --offload home` is: a fresh DHT node that the lender has not seen.
      const ping = await runCli(deviceHome, ["peer", "ping", "home", "--json", "--bootstrap", bootstrap], 60_000);
      expect(ping.stderr, `run ${run}`).toBe("");
      const answer = JSON.parse(ping.stdout) as { name: string; publicKey: string; links: number; model: { id: string } };
      expect(answer).toMatchObject({ name: "home", publicKey: lenderKey, model: { id: "never-asked" } });
      links.push(answer.links);
    }
    // A link the lender never got shows as a second (or third) link.
    expect(links).toEqual([1, 1, 1, 1, 1, 1]);
  }, 240_000);

  it("botpsy peer ping names the lenders there are when asked for one that is not paired", async () => {
    const ping = await runCli(deviceHome, ["peer", "ping", "office", "--bootstrap", bootstrap], 60_000);
    expect(ping.code).toBe(2);
    expect(ping.stderr).toContain('No lender is paired as "office" (paired: home)');
  }, 60_000);
});
