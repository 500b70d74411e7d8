import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configPath } from "../../src/config.js";
import { PeerBook } from "../../src/peer/peer-book.js";

/** The peer commands' refusals, which all come before a model is loaded or a DHT node is made. */
let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "botpsy-peer-command-"));
});

afterEach(() => rmSync(home, { recursive: true, force: true }));

function botpsy(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ["--import", "tsx", resolve("src/cli/main.ts"), ...args], { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home }, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error && typeof error.code === "number" ? error.code : error ? -1 : 0, stdout, stderr });
    });
  });
}

describe("botpsy peer commands refuse", () => {
  it("to serve without a bootstrap, or with one off loopback, saying how to pass one", async () => {
    const missing = await botpsy(["peer", "serve"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("[peer_bootstrap_missing]");
    expect(missing.stderr).toContain("--bootstrap <host:port>");
    writeFileSync(configPath(home), JSON.stringify({ peer: { bootstrap: ["203.0.113.7:49737"] } }));
    const remote = await botpsy(["peer", "serve"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("[peer_bootstrap_not_loopback]");
  }, 60_000);

  it("to offload a run to a peer that is not paired, or without a bootstrap once one is", async () => {
    const unknown = await botpsy(["run", "hello", "--offload", "home"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No peer is paired as "home"');
    PeerBook.open(home).addLender("home", "ab".repeat(32));
    // Paired: auto is the default, and it needs a bootstrap.
    const noBootstrap = await botpsy(["run", "hello"]);
    expect(noBootstrap.code).toBe(2);
    expect(noBootstrap.stderr).toContain("[peer_bootstrap_missing]");
  }, 60_000);

  it("to lend internet with a bad allow-list, or to send the web through a peer that is not paired", async () => {
    const alone = await botpsy(["peer", "serve", "--lend-internet-allow-host", "127.0.0.1:8080", "--bootstrap", "127.0.0.1:9"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--lend-internet-allow-host only applies with --lend-internet");
    const noPort = await botpsy(["peer", "serve", "--lend-internet", "--lend-internet-allow-host", "nas.local", "--bootstrap", "127.0.0.1:9"]);
    expect(noPort.code).toBe(2);
    expect(noPort.stderr).toContain("[peer_web_allow_host_invalid]");
    const unpaired = await botpsy(["run", "search the web for Porto", "--offload", "never", "--web-via", "home"]);
    expect(unpaired.code).toBe(2);
    expect(unpaired.stderr).toContain('No peer is paired as "home", so the web cannot go through it');
  }, 60_000);

  it("an invite that is not one, and lists peers and removes them", async () => {
    const bad = await botpsy(["peer", "pair", "botpsy-invite1-AAAA", "--bootstrap", "127.0.0.1:9"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("[peer_invite_invalid]");
    PeerBook.open(home).addLender("home", "ab".repeat(32));
    expect((await botpsy(["peer", "list"])).stdout).toMatch(/home\s+abab/);
    expect((await botpsy(["peer", "rm", "home"])).code).toBe(0);
    const again = await botpsy(["peer", "rm", "home"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("[peer_unknown]");
  }, 60_000);
});
