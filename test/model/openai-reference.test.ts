import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configPath } from "../../src/config.js";
import { openOpenAIReference, parseOpenAIReference } from "../../src/model/resolve.js";
import { startServeProcess } from "../support/serve-process.js";

/**
 * `openai:<base-url>[#model]` as the model of a run, against a real
 * `botpsy serve` (127.0.0.1, a free port, the real SmolLM2 on one thread,
 * an access token required): the agent's model turns go over HTTP, its tool
 * calls run against the local profile, and each turn says where it ran.
 */
const modelPath = process.env.BOTPSY_TEST_MODEL ?? resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
let serverHome: string;
let deviceHome: string;
let server: ChildProcess;
let baseURL: string;
let token: string;

function cli(home: string, args: string[], environment: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", resolve("src/cli/main.ts"), ...args], {
      cwd: resolve("."),
      env: { ...process.env, BOTPSY_HOME: home, ...environment },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

beforeAll(async () => {
  if (!existsSync(modelPath)) throw new Error(`The test model is missing at ${modelPath}; fetch it with: botpsy models pull smollm2-135m-instruct-q4_1`);
  serverHome = mkdtempSync(join(tmpdir(), "botpsy-openai-server-"));
  deviceHome = mkdtempSync(join(tmpdir(), "botpsy-openai-device-"));
  ({ child: server, baseURL, token } = await startServeProcess({ home: serverHome, modelPath }));
}, 280_000);

afterAll(() => {
  server?.kill("SIGTERM");
  for (const home of [serverHome, deviceHome]) if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

describe("openai: model references", () => {
  it("parse a base URL and an optional model; the key comes from BOTPSY_OPENAI_API_KEY", () => {
    expect(parseOpenAIReference("openai:http://127.0.0.1:8080/v1#qwen", { BOTPSY_OPENAI_API_KEY: "k" })).toEqual({ baseUrl: "http://127.0.0.1:8080/v1", model: "qwen", apiKey: "k" });
    expect(parseOpenAIReference("openai:http://127.0.0.1:8080/v1", {})).toEqual({ baseUrl: "http://127.0.0.1:8080/v1", model: undefined, apiKey: undefined });
    expect(() => parseOpenAIReference("openai:not a url", {})).toThrow(/valid base URL/);
    expect(() => parseOpenAIReference("openai:ftp://127.0.0.1/v1", {})).toThrow(/http/);
    expect(() => parseOpenAIReference("openai:http://127.0.0.1:8080/v1#", {})).toThrow(/without a model name/);
  });

  it("find the served model, and a missing key is an error that names the variable", async () => {
    const model = await openOpenAIReference(`openai:${baseURL}`, { BOTPSY_OPENAI_API_KEY: token });
    expect(model.id).toMatch(/SmolLM2/i);
    await expect(openOpenAIReference(`openai:${baseURL}`, {})).rejects.toThrow(/BOTPSY_OPENAI_API_KEY/);
    const named = await openOpenAIReference(`openai:${baseURL}#${model.id}`, {});
    await expect(named.generate({ messages: [{ role: "user", content: "hi" }], maxTokens: 4 }).result).rejects.toThrow(/BOTPSY_OPENAI_API_KEY/);
    const run = await cli(deviceHome, ["run", "hello", "--model", `openai:${baseURL}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("BOTPSY_OPENAI_API_KEY");
  }, 120_000);

  it("serve an agent run set up by config.json: model turns over HTTP, tool calls here", async () => {
    writeFileSync(configPath(deviceHome), JSON.stringify({ model: `openai:${baseURL}` }));
    const before = JSON.parse((await cli(deviceHome, ["apps", "show", "alarms", "--json"])).stdout) as unknown[];
    const run = await cli(deviceHome, ["run", "set an alarm for 7 am tomorrow", "--yes", "--max-steps", "3"], { BOTPSY_OPENAI_API_KEY: token });
    const host = new URL(baseURL).host;
    expect(run.stdout).toContain(`(model turn 1 ran on openai:${host})`);
    expect(run.stderr).not.toContain("unexpected error");
    // Whatever the model called ran against this home's profile, not the server's.
    const executed = run.stdout.match(/✓ set_alarm/g)?.length ?? 0;
    const after = JSON.parse((await cli(deviceHome, ["apps", "show", "alarms", "--json"])).stdout) as unknown[];
    expect(after.length - before.length).toBe(executed);
    expect((await cli(deviceHome, ["audit"])).stdout).toContain(`model turn 1 ran on openai:${host}`);
  }, 280_000);
});
