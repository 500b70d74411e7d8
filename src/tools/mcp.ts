import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { BotpsyError, errorMessage } from "../errors.js";
import { botpsyVersion } from "../version.js";
import { defineTool, ToolError, type Risk, type Tool } from "./tool.js";
import type { ToolBox } from "./toolbox.js";

/** How to reach an MCP server: a command speaking stdio, or a streamable HTTP endpoint. */
export type McpServerAddress =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> };

export interface McpImportOptions {
  /** A short name for the server; its tools are tagged with it as their app. */
  name: string;
  /**
   * Whether the server's results may be trusted like the user's own apps.
   * Default false: its results reach the model fenced as untrusted data.
   */
  trusted?: boolean;
  /** Prefix every tool name with `<name>_` (to avoid clashes between servers). Default false. */
  prefixNames?: boolean;
  /** Per-call timeout in milliseconds. Default 10 000. */
  timeoutMs?: number;
  /** Only these MCP tool names (default: all). */
  only?: readonly string[];
}

export class McpError extends BotpsyError {}

/** The MCP tool fields botpsy reads. */
interface McpToolDescription {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

interface McpContent {
  type: string;
  text?: string;
}

/**
 * A connection to one MCP server and the botpsy tools made from its tools.
 * Close it when done: a stdio server is a child process.
 */
export class McpConnection {
  readonly name: string;
  readonly tools: Tool[];
  private readonly client: Client;

  constructor(name: string, client: Client, tools: Tool[]) {
    this.name = name;
    this.client = client;
    this.tools = tools;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Connect to an MCP server and describe its tools as botpsy tools (nothing is added anywhere). */
export async function connectMcpServer(address: McpServerAddress, options: McpImportOptions): Promise<McpConnection> {
  if (!/^[a-zA-Z][a-zA-Z0-9_-]{0,31}$/.test(options.name)) {
    throw new McpError("invalid_mcp_name", `MCP server name "${options.name}" is not usable: use letters, digits, "-" and "_", starting with a letter (at most 32).`);
  }
  const stderrTail: string[] = [];
  const transport = createTransport(address, stderrTail);
  const client = new Client({ name: "botpsy", version: botpsyVersion() });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    const stderr = stderrTail.join("").trim();
    throw new McpError(
      "mcp_connect_failed",
      `Could not connect to the MCP server "${options.name}" (${describeAddress(address)}): ${errorMessage(error)}.${stderr ? ` Its error output: ${stderr.slice(-500)}` : ""} Check the command or URL and that the server speaks MCP.`,
      { cause: error },
    );
  }
  try {
    const described = await listAllTools(client);
    const chosen = options.only ? described.filter((tool) => options.only!.includes(tool.name)) : described;
    const tools = chosen.map((tool) => toBotpsyTool(client, tool, options));
    return new McpConnection(options.name, client, tools);
  } catch (error) {
    await client.close().catch(() => undefined);
    if (error instanceof BotpsyError) throw error;
    throw new McpError("mcp_list_failed", `The MCP server "${options.name}" did not list its tools: ${errorMessage(error)}.`, { cause: error });
  }
}

/** Connect to an MCP server and add its tools to `toolbox`. */
export async function addMcpServer(toolbox: ToolBox, address: McpServerAddress, options: McpImportOptions): Promise<McpConnection> {
  const connection = await connectMcpServer(address, options);
  try {
    toolbox.add(...connection.tools);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return connection;
}

/** MCP annotations to a botpsy risk: read-only reads, destructive destroys, anything else writes. */
export function riskOfAnnotations(annotations: McpToolDescription["annotations"]): Risk {
  if (annotations?.readOnlyHint === true) return "read";
  if (annotations?.destructiveHint === true) return "destructive";
  return "write";
}

/** A botpsy tool name for an MCP tool name (which may hold dots, dashes…). */
export function botpsyToolName(mcpName: string, options: Pick<McpImportOptions, "name" | "prefixNames">): string {
  const cleaned = mcpName.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^[^a-zA-Z_]+/, "");
  const prefixed = options.prefixNames ? `${options.name.replace(/-/g, "_")}_${cleaned}` : cleaned;
  return (prefixed === "" ? "tool" : prefixed).slice(0, 64);
}

function toBotpsyTool(client: Client, description: McpToolDescription, options: McpImportOptions): Tool {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return defineTool({
    name: botpsyToolName(description.name, options),
    description:
      description.description?.trim() || description.title?.trim() || description.annotations?.title?.trim() || `The ${description.name} tool of the ${options.name} server.`,
    input: inputSchemaOf(description),
    risk: riskOfAnnotations(description.annotations),
    app: options.name,
    resultTrust: options.trusted ? "trusted" : "untrusted",
    timeoutMs,
    run: async (args, context) => {
      const result = (await client.callTool({ name: description.name, arguments: args as Record<string, unknown> }, undefined, {
        signal: context.signal,
        timeout: timeoutMs,
      })) as { content?: McpContent[]; structuredContent?: unknown; isError?: boolean };
      const text = textOf(result.content ?? []);
      if (result.isError) {
        throw new ToolError("mcp_tool_error", text === "" ? `${description.name} reported an error without saying which.` : text);
      }
      if (result.structuredContent !== undefined) return result.structuredContent;
      return text;
    },
  });
}

/**
 * The MCP input schema as zod, so arguments are checked before the call like
 * any tool's. A schema zod cannot read is accepted as any object: the server
 * still validates.
 */
function inputSchemaOf(description: McpToolDescription): z.ZodType {
  try {
    return z.fromJSONSchema(description.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.looseObject({});
  }
}

function textOf(content: McpContent[]): string {
  return content
    .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : `[${part.type} content]`))
    .join("\n");
}

async function listAllTools(client: Client): Promise<McpToolDescription[]> {
  const tools: McpToolDescription[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...(page.tools as McpToolDescription[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function createTransport(address: McpServerAddress, stderrTail: string[]): Transport {
  if ("url" in address) {
    let url: URL;
    try {
      url = new URL(address.url);
    } catch (error) {
      throw new McpError("invalid_mcp_address", `"${address.url}" is not a URL; give the server's MCP endpoint, such as http://127.0.0.1:3000/mcp.`, { cause: error });
    }
    return new StreamableHTTPClientTransport(url, address.headers ? { requestInit: { headers: address.headers } } : undefined);
  }
  if (address.command.trim() === "") throw new McpError("invalid_mcp_address", "The MCP server command is empty; give the program that starts the server.");
  const transport = new StdioClientTransport({
    command: address.command,
    args: address.args,
    env: address.env ? { ...(process.env as Record<string, string>), ...address.env } : undefined,
    cwd: address.cwd,
    stderr: "pipe",
  });
  // Keep the end of the server's error output for a useful message, without letting the pipe fill.
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrTail.push(chunk.toString("utf8"));
    if (stderrTail.length > 20) stderrTail.shift();
  });
  return transport;
}

function describeAddress(address: McpServerAddress): string {
  return "url" in address ? address.url : [address.command, ...(address.args ?? [])].join(" ");
}
