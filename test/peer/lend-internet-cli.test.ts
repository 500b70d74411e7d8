import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import createTestnet, { type Testnet } from "@hyperswarm/testnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configPath } from "../../src/config.js";
import { assertLoopbackBootstrap } from "../../src/peer/bootstrap.js";
import type { ReceivedEntry } from "../../src/peer/peer-server.js";
import { runCli, type CliResult } from "../support/cli-process.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * The commands end to end, as a user types them, on a local testnet (every
 * DHT node on 127.0.0.1, the bootstrap checked to be loopback):
 *   - the lender runs `botpsy peer serve --lend-internet
 *     --lend-internet-allow-host <the page server>`;
 *   - the device pairs, and runs `botpsy run` with a web search provider and
 *     `peer.webVia: "home"` in its config.json.
 * No model is loaded: each side names an `openai:` model, a small chat
 * completions server here that scripts the device's turns (search, then
 * answer); the lender's is never asked. The page server records each
 * request's User-Agent, so a request from the device's own network (Node's
 * fetch) would show.
 */
let testnet: Testnet;
let bootstrap: string;
let lenderHome: string;
let deviceHome: string;
let lender: ChildProcess | undefined;
let lenderOutput = "";
let web: Server;
let webOrigin: string;
const webRequests: { path: string; userAgent: string }[] = [];
let models: Server;
let modelsUrl: string;
const modelRequests: { model: string; tools: string[] }[] = [];

function cli(home: string, args: string[], timeoutMs = 60_000): Promise<CliResult> {
  return runCli(home, args, timeoutMs);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Streams one chat completions answer: a call to search_web while no tool result is in, then the answer. */
function answer(body: { model: string; messages: { role: string }[]; tools?: { function: { name: string } }[] }, response: ServerResponse): void {
  const tools = (body.tools ?? []).map((tool) => tool.function.name);
  modelRequests.push({ model: body.model, tools });
  const searched = body.messages.some((message) => message.role === "tool");
  const delta =
    !searched && tools.includes("search_web")
      ? { tool_calls: [{ index: 0, id: "call_1", function: { name: "search_web", arguments: JSON.stringify({ query: "best time to visit Porto" }) } }] }
      : { content: searched ? "Go to Porto from April to June." : `search_web was not offered (tools: ${tools.join(", ")}).` };
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.write(`data: ${JSON.stringify({ choices: [{ delta }] })}\n\n`);
  response.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: searched ? "stop" : "tool_calls" }] })}\n\n`);
  response.end("data: [DONE]\n\n");
}

beforeAll(async () => {
  testnet = await createTestnet(3, { host: "127.0.0.1" });
  assertLoopbackBootstrap(testnet.bootstrap);
  bootstrap = `${testnet.bootstrap[0]!.host}:${testnet.bootstrap[0]!.port}`;

  web = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", webOrigin);
    webRequests.push({ path: url.pathname, userAgent: String(request.headers["user-agent"] ?? "") });
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify([{ title: "Porto in spring", url: `${webOrigin}/porto`, snippet: `Porto is best from April to June (${url.searchParams.get("q")})` }]));
  });
  const webHost = await listen(web);
  webOrigin = `http://${webHost}`;
  models = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = "";
    request.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    request.on("end", () => answer(JSON.parse(raw) as Parameters<typeof answer>[0], response));
  });
  modelsUrl = `http://${await listen(models)}/v1`;

  lenderHome = makeTempDir("botpsy-lend-cli-lender-");
  deviceHome = makeTempDir("botpsy-lend-cli-device-");
  writeFileSync(configPath(deviceHome), JSON.stringify({ providers: { web_search: `${webOrigin}/search` }, peer: { bootstrap: [bootstrap], webVia: "home" } }));

  lender = spawn(
    process.execPath,
    ["--import", "tsx", resolve("src/cli/main.ts"), "peer", "serve", "--model", `openai:${modelsUrl}#lent`, "--bootstrap", bootstrap, "--lend-internet", "--lend-internet-allow-host", webHost, "--log-requests", join(lenderHome, "received.jsonl")],
    { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: lenderHome }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  lender.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((done, fail) => {
    lender!.stdout!.on("data", (chunk: Buffer) => {
      lenderOutput += chunk.toString();
      if (lenderOutput.includes("It also lends its internet")) done();
    });
    lender!.once("exit", (code) => fail(new Error(`botpsy peer serve exited (${String(code)}): ${stderr}`)));
  });

  const invite = await cli(lenderHome, ["peer", "invite", "--name", "phone", "--no-qr"]);
  expect(invite.code).toBe(0);
  const inviteText = /^(botpsy-invite1-\S+)$/m.exec(invite.stdout)![1]!;
  const paired = await cli(deviceHome, ["peer", "pair", inviteText, "--name", "home"]);
  expect(paired.stderr, `lender said: ${lenderOutput}${stderr}`).toBe("");
  expect(paired.stdout).toContain('Paired with "home"');
}, 180_000);

afterAll(async () => {
  lender?.kill("SIGKILL");
  await testnet?.destroy();
  web?.close();
  models?.closeAllConnections();
  models?.close();
});

describe("botpsy peer serve --lend-internet and a device's run with peer.webVia", () => {
  it("the device's web search goes out from the lender, which prints and logs it", async () => {
    const run = await cli(deviceHome, ["run", "Search the web for the best time to visit Porto", "--model", `openai:${modelsUrl}#device`, "--offload", "never", "--yes"]);
    expect(run.stderr).not.toMatch(/error|peer_/i);
    expect(run.stdout).toContain("✓ search_web");
    expect(run.stdout).toContain('"source":"web search provider"');
    expect(run.stdout).toContain("Porto is best from April to June (best time to visit Porto)");
    expect(run.code, run.stdout).toBe(0);

    // The provider saw one request, from the lender's client; the device's model server saw only the device.
    expect(webRequests).toEqual([{ path: "/search", userAgent: expect.stringMatching(/^botpsy-peer/) }]);
    expect(new Set(modelRequests.map((request) => request.model))).toEqual(new Set(["device"]));
    const url = `${webOrigin}/search?q=best+time+to+visit+Porto`;
    const fetches = readFileSync(join(lenderHome, "received.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as ReceivedEntry)
      .filter((entry) => entry.event === "web-fetch");
    expect(fetches).toEqual([expect.objectContaining({ from: "phone", url, status: 200, bytes: expect.any(Number) })]);
    expect(lenderOutput).toMatch(new RegExp(`web fetch for phone: ${url.replace(/[.?+]/g, "\\$&")} → HTTP 200, \\d+ bytes`));

    // The device's own audit log says which page went out through the peer, and its chain still verifies.
    const audit = await cli(deviceHome, ["audit", "--json"]);
    expect(audit.code).toBe(0);
    const entries = JSON.parse(audit.stdout) as Array<{ kind: string; data: unknown }>;
    expect(entries.filter((entry) => entry.kind === "web-request").map((entry) => entry.data)).toEqual([{ url, lender: "home", status: 200 }]);
    const printed = await cli(deviceHome, ["audit"]);
    expect(printed.stdout).toContain(`page fetched through peer home: ${url} (status 200)`);
    expect((await cli(deviceHome, ["audit", "--verify"])).code).toBe(0);
  }, 120_000);
});
