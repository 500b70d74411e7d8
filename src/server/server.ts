import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { BotpsyError } from "../errors.js";
import type { ChatModel } from "../model/types.js";
import type { AccessToken } from "./access-token.js";
import { agentRoutes, type AgentService } from "./agent-routes.js";
import { ApiError, toApiError } from "./api-error.js";
import { Admission, openAIRoutes } from "./openai-routes.js";
import { evalRoutes } from "./eval-routes.js";
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from "./request-body.js";
import { defaultWebRoot, webAppRoutes } from "./web-app.js";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 11435;

export class ServerSecurityError extends BotpsyError {}

export interface ServerAppOptions {
  model: ChatModel;
  /** The agent API (runs, approvals, apps, undo, audit); without it only the OpenAI-compatible routes exist. */
  agent?: AgentService;
  /** When set, every request must carry `Authorization: Bearer <token>`. Required off loopback. */
  accessToken?: AccessToken;
  limits?: Partial<RequestLimits>;
  /** Requests that may wait for the model at once before new ones get 503. Default 64. */
  maxQueuedRequests?: number;
  /**
   * Web origins allowed to call the API from a browser (CORS). Default none:
   * a page on another site can neither read answers nor send JSON here.
   */
  corsOrigins?: readonly string[];
  /**
   * Host names the Host header may carry. Default: any when an access token
   * guards the server; on loopback without one, only loopback names, so a web
   * page cannot reach the server by rebinding its own name to 127.0.0.1.
   */
  allowedHostNames?: readonly string[];
  /**
   * The built web app to serve at `/` (default: the package's dist/web when
   * it was built); `false` serves none.
   */
  webRoot?: string | false;
  /** Results files (.jsonl of botpsy eval run) the web app's report view shows. */
  evalResults?: readonly string[];
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

function hostNameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/** The whole HTTP API as a Hono app (also usable without a socket: `app.request(...)`). */
export function createServerApp(options: ServerAppOptions): Hono {
  const limits: RequestLimits = { ...DEFAULT_REQUEST_LIMITS, ...options.limits };
  const corsOrigins = new Set(options.corsOrigins ?? []);
  const hostAllowed: ((host: string) => boolean) | undefined = options.allowedHostNames
    ? (host) => options.allowedHostNames!.includes(host)
    : options.accessToken
      ? undefined
      : isLoopbackHost;
  const webRoot = options.webRoot === false ? undefined : (options.webRoot ?? defaultWebRoot());
  const app = new Hono();

  app.onError((error, c) => {
    const apiError = toApiError(error);
    if (apiError.status === 500) process.stderr.write(`botpsy serve: ${c.req.method} ${c.req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return c.json(apiError.body(), apiError.status as 400);
  });
  app.notFound((c) => {
    const error = new ApiError(404, "not_found", `There is no route ${c.req.method} ${c.req.path}. Routes: GET /v1/models, POST /v1/chat/completions${options.agent ? ", POST /v1/agent/runs, GET /v1/apps, POST /v1/undo, GET /v1/audit" : ""}.`);
    return c.json(error.body(), 404);
  });

  app.use("*", async (c, next) => {
    if (hostAllowed !== undefined) {
      const host = hostNameOf(c.req.header("host") ?? "");
      if (!hostAllowed(host)) throw new ApiError(403, "host_not_allowed", `Host "${host}" is not a name of this server; use http://127.0.0.1.`);
    }
    const origin = c.req.header("origin");
    // The web app's own requests carry its origin, which is this server's.
    const sameOrigin = origin !== undefined && origin === new URL(c.req.url).origin;
    if (origin !== undefined && !sameOrigin) {
      if (!corsOrigins.has(origin)) {
        throw new ApiError(403, "origin_not_allowed", `Requests from the web origin ${origin} are refused; start the server with --cors-origin ${origin} to allow it.`);
      }
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Vary", "Origin");
      if (c.req.method === "OPTIONS") {
        c.header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
        c.header("Access-Control-Allow-Headers", "Authorization, Content-Type");
        c.header("Access-Control-Max-Age", "600");
        return c.body(null, 204);
      }
    }
    // The web app's files hold no secret: the page loads without the token and sends it with each API call.
    const webAppFile = webRoot !== undefined && c.req.method === "GET" && !c.req.path.startsWith("/v1/") && c.req.path !== "/v1";
    if (options.accessToken && !webAppFile && !options.accessToken.accepts(c.req.header("authorization"))) {
      c.header("WWW-Authenticate", "Bearer");
      throw new ApiError(401, "invalid_api_key", "This server needs its access token: send Authorization: Bearer <token> (botpsy serve --rotate-token makes a new one).");
    }
    await next();
  });

  app.route("/", openAIRoutes({ model: options.model, limits, loadedAt: Math.floor(Date.now() / 1000), admission: new Admission(options.maxQueuedRequests ?? 64) }));
  if (options.agent) app.route("/", agentRoutes(options.agent, limits));
  app.route("/", evalRoutes(options.evalResults ?? []));
  if (webRoot !== undefined) app.route("/", webAppRoutes(webRoot));
  return app;
}

export interface StartServerOptions extends ServerAppOptions {
  /** Default 127.0.0.1. Any other address requires `accessToken`. */
  host?: string;
  /** Default 11435; 0 picks a free port. */
  port?: number;
  /** Longest a client may take to send its headers. Default 10 s. */
  headersTimeoutMs?: number;
  /** Longest a client may take to send a whole request (slow clients are cut off). Default 30 s. */
  receiveTimeoutMs?: number;
  /** Open connections at once; more are refused until some close. Default 256. */
  maxConnections?: number;
}

export interface RunningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the HTTP server. Refuses an address other than loopback without an access token. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  if (!isLoopbackHost(host) && options.accessToken === undefined) {
    throw new ServerSecurityError(
      "access_token_required",
      `Serving on ${host} makes botpsy reachable from other machines, so it needs an access token; start it with one (botpsy serve creates it), or serve on 127.0.0.1.`,
    );
  }
  const app = createServerApp(options);
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const receiveTimeout = Math.max(options.receiveTimeoutMs ?? 30_000, headersTimeout);
  const server: ServerType = await new Promise<ServerType>((resolve, reject) => {
    const started = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port: options.port ?? DEFAULT_PORT,
        // Node checks the two timeouts only every connectionsCheckingInterval (30 s by default): check each second.
        serverOptions: { headersTimeout, requestTimeout: receiveTimeout, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 },
      },
      () => resolve(started),
    );
    started.once("error", reject);
  });
  // Each connection costs a socket and buffers: a flood of idle or slow clients must not exhaust them.
  server.maxConnections = options.maxConnections ?? 256;
  // A client that breaks the protocol gets a short answer, never takes the process down.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    const timedOut = error.code === "ERR_HTTP_REQUEST_TIMEOUT" || error.code === "ERR_HTTP_HEADERS_TIMEOUT";
    if (socket.writable) socket.end(`HTTP/1.1 ${timedOut ? "408 Request Timeout" : "400 Bad Request"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    host,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
