import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { Profile } from "../../src/apps/profile.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { addMcpServer, botpsyToolName, connectMcpServer, riskOfAnnotations, type McpConnection } from "../../src/tools/mcp.js";
import { toolSpec, type ToolContext } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { createFixtureServer } from "./fixtures/mcp-server.js";
import { makeTempDir } from "../support/temp-dir.js";

const stdioServer = { command: process.execPath, args: ["--import", "tsx", resolve("test/tools/fixtures/mcp-server.ts"), "--stdio"], cwd: resolve(".") };

function context(): ToolContext {
  const profile = Profile.open({ databasePath: ":memory:", apps: [], seed: "empty", home: makeTempDir("botpsy-mcp-") });
  return profile.store.read((store) => ({ signal: new AbortController().signal, store, now: () => new Date(), timeZone: "UTC", dryRun: false }));
}

describe("MCP tools over stdio", () => {
  let connection: McpConnection;
  beforeAll(async () => {
    connection = await connectMcpServer(stdioServer, { name: "fixture" });
  }, 60_000);
  afterAll(async () => connection?.close());

  it("lists the server's tools with risks from their annotations and JSON schemas", () => {
    const byName = new Map(connection.tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(["add_task", "always_fails", "get_forecast", "wipe_tasks"]);
    expect(byName.get("get_forecast")!.risk).toBe("read");
    expect(byName.get("wipe_tasks")!.risk).toBe("destructive");
    expect(byName.get("add_task")!.risk).toBe("write");
    expect(byName.get("add_task")!.app).toBe("fixture");
    expect(byName.get("get_forecast")!.resultTrust).toBe("untrusted");
    const spec = toolSpec(byName.get("add_task")!);
    expect(spec.parameters).toMatchObject({ type: "object", properties: { title: { type: "string" }, priority: { enum: ["low", "high"] } }, required: ["title"] });
  });

  it("calls tools: text results, structured results, errors as tool errors, arguments checked before the call", async () => {
    const byName = new Map(connection.tools.map((tool) => [tool.name, tool]));
    expect(await byName.get("get_forecast")!.run({ city: "Porto", days: 2 }, context())).toContain("Sunny in Porto for 2 day(s)");
    expect(await byName.get("add_task")!.run({ title: "call mum", priority: "high" }, context())).toEqual({
      count: 1,
      last: { title: "call mum", priority: "high" },
    });
    await expect(Promise.resolve(byName.get("always_fails")!.run({}, context()))).rejects.toMatchObject({
      code: "mcp_tool_error",
      message: "The service is down. Try again in an hour.",
    });
    expect(byName.get("add_task")!.input.safeParse({ title: 3 }).success).toBe(false);
    expect(byName.get("add_task")!.input.safeParse({ title: "x", priority: "urgent" }).success).toBe(false);
  });
});

describe("MCP tools over streamable HTTP", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // One MCP session per client, as a real server keeps them.
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    server = createServer((request, response) => {
      const sessionId = request.headers["mcp-session-id"];
      const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (existing) {
        void existing.handleRequest(request, response);
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      void createFixtureServer()
        .connect(transport)
        .then(() => transport.handleRequest(request, response));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  it("adds the tools to a ToolBox and an agent calls them, their results fenced as untrusted", async () => {
    const toolbox = new ToolBox();
    const connection = await addMcpServer(toolbox, { url }, { name: "weather", prefixNames: true });
    try {
      expect(toolbox.has("weather_get_forecast")).toBe(true);
      const profile = Profile.open({ databasePath: ":memory:", apps: [], seed: "empty", home: makeTempDir("botpsy-mcp-") });
      const model = new ScriptedModel([{ toolCalls: [{ name: "weather_get_forecast", arguments: { city: "Lisbon" } }] }, "It will be sunny."]);
      const outcome = await new Agent({ model, profile, toolbox }).run("weather in Lisbon?").outcome;
      expect(outcome.stopReason).toBe("answered");
      expect(outcome.calls[0]).toMatchObject({ status: "ok", risk: "read" });
      const result = model.requests[1]!.messages.at(-1)!;
      expect(result.content).toContain("untrusted_data");
      expect(result.content).not.toContain("<|im_start|>");
      profile.close();
    } finally {
      await connection.close();
    }
  });

  it("a trusted server's results are plain data", async () => {
    const connection = await connectMcpServer({ url }, { name: "weather", trusted: true, only: ["get_forecast"] });
    try {
      expect(connection.tools.map((tool) => tool.name)).toEqual(["get_forecast"]);
      expect(connection.tools[0]!.resultTrust).toBe("trusted");
    } finally {
      await connection.close();
    }
  });
});

describe("MCP bad input", () => {
  it("explains a server that cannot be started or reached", async () => {
    await expect(connectMcpServer({ command: "/nonexistent/mcp-server" }, { name: "ghost" })).rejects.toMatchObject({ code: "mcp_connect_failed" });
    await expect(connectMcpServer({ url: "http://127.0.0.1:9/mcp" }, { name: "ghost" })).rejects.toMatchObject({ code: "mcp_connect_failed" });
    await expect(connectMcpServer({ url: "not a url" }, { name: "ghost" })).rejects.toMatchObject({ code: "invalid_mcp_address" });
    await expect(connectMcpServer({ url: "http://127.0.0.1:9/mcp" }, { name: "bad name!" })).rejects.toMatchObject({ code: "invalid_mcp_name" });
  }, 30_000);

  it("maps annotations and names", () => {
    expect(riskOfAnnotations(undefined)).toBe("write");
    expect(riskOfAnnotations({ readOnlyHint: true, destructiveHint: true })).toBe("read");
    expect(riskOfAnnotations({ destructiveHint: false })).toBe("write");
    expect(botpsyToolName("files.read-text", { name: "fs" })).toBe("files_read_text");
    expect(botpsyToolName("9lives", { name: "cat-box", prefixNames: true })).toBe("cat_box_lives");
  });
});
