import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

/**
 * The package as a user gets it: built, packed with `npm pack`, installed
 * into a fresh project, and imported from an ES module there, which runs a
 * scripted agent on a tool it defines.
 *
 * The install is `npm install <tarball> --offline`. Where the machine has no
 * npm cache to satisfy botpsy's dependencies offline (no network is used by
 * tests), the project is laid out as npm would lay it: the tarball unpacked
 * as node_modules/botpsy, beside links to this repository's installed
 * dependencies. Either way the consumer resolves `botpsy` and
 * `botpsy/testing` through the package's own `exports`.
 */
let directory: string;
let project: string;
let installedBy: "npm install --offline" | "unpacked beside the repository's dependencies";

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-package-"));
  await run("npm", ["run", "build"], { cwd: resolve("."), timeout: 240_000 });
  const packed = await run("npm", ["pack", "--pack-destination", directory, "--json"], { cwd: resolve("."), timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  const tarball = join(directory, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  project = join(directory, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  try {
    await run("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund"], { cwd: project, timeout: 120_000 });
    installedBy = "npm install --offline";
  } catch {
    const modules = join(project, "node_modules");
    rmSync(modules, { recursive: true, force: true });
    mkdirSync(join(modules, "botpsy"), { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", join(modules, "botpsy"), "--strip-components=1"]);
    const repositoryModules = resolve("node_modules");
    for (const entry of readdirSync(repositoryModules)) {
      if (entry === "botpsy" || entry === ".bin" || entry.startsWith(".")) continue;
      symlinkSync(join(repositoryModules, entry), join(modules, entry));
    }
    installedBy = "unpacked beside the repository's dependencies";
  }
}, 300_000);

afterAll(() => rmSync(directory, { recursive: true, force: true }));

const consumerScript = `
import { Agent, ToolBox, defineTool, createServerApp, Profile } from "botpsy";
import { ScriptedModel, openTestProfile } from "botpsy/testing";
import { z } from "zod";

const greetings = [];
const greet = defineTool({
  name: "greet",
  description: "Greet a person by name",
  input: z.object({ name: z.string() }),
  risk: "read",
  run: ({ name }) => {
    greetings.push(name);
    return { greeting: "Hello, " + name };
  },
});
const profile = openTestProfile();
const model = new ScriptedModel([{ toolCalls: [{ name: "greet", arguments: { name: "Ana" } }] }, "I greeted Ana."]);
const agent = new Agent({ model, profile, toolbox: new ToolBox([greet]) });
const run = agent.run("Greet Ana");
const events = [];
for await (const event of run) events.push(event.type);
const outcome = await run.outcome;
// The installed package serves its own built web app.
const page = await createServerApp({ model }).request("http://127.0.0.1/", { headers: { host: "127.0.0.1" } });
const webApp = page.status + " " + page.headers.get("content-type") + " " + (await page.text()).includes('src="app.js"');
let internal = "reachable";
try {
  await import("botpsy/dist/src/agent/agent.js");
} catch (error) {
  internal = error.code;
}
console.log(JSON.stringify({
  stopReason: outcome.stopReason,
  answer: outcome.answer,
  greetings,
  events,
  profileIsClass: typeof Profile === "function",
  server: typeof createServerApp,
  webApp,
  internal,
}));
profile.close();
`;

describe("the packed package", () => {
  it("imports botpsy and botpsy/testing in a fresh project and runs a scripted agent on a tool", async () => {
    writeFileSync(join(project, "main.mjs"), consumerScript);
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: project, timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(result, `installed by ${installedBy}`).toMatchObject({
      stopReason: "answered",
      answer: "I greeted Ana.",
      greetings: ["Ana"],
      profileIsClass: true,
      server: "function",
      webApp: "200 text/html; charset=utf-8 true",
      internal: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    });
    expect(result.events).toEqual(expect.arrayContaining(["tool-call", "tool-result", "done"]));
  });
});
