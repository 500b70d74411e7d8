import { resolve } from "node:path";
import type { Command } from "commander";
import { botpsyHome } from "../../config.js";
import { InvalidInputError } from "../../errors.js";
import { createChatModel } from "../../model/resolve.js";
import { AccessToken, accessTokenPath } from "../../server/access-token.js";
import { createAgentService } from "../../server/agent-routes.js";
import { defaultWebRoot } from "../../server/web-app.js";
import { DEFAULT_HOST, DEFAULT_PORT, isLoopbackHost, startServer } from "../../server/server.js";
import { openAgentProfile, parseMaxSteps, parseThreads, withWebViaOptions } from "./run.js";
import { untilStopped } from "../until-stopped.js";

interface ServeCommandOptions {
  host: string;
  port: string;
  profile?: string;
  model?: string;
  threads?: string;
  maxSteps?: string;
  rotateToken?: boolean;
  corsOrigin?: string[];
  maxBody?: string;
  requestTimeout?: string;
  evalResults?: string[];
  webVia?: string;
  bootstrap?: string[];
  allowRemoteBootstrap?: boolean;
}

function parseWhole(name: string, value: string | undefined, minimum: number, maximum: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum || number > maximum) {
    throw new InvalidInputError(`--${name} must be a whole number from ${minimum} to ${maximum}, not "${value}".`);
  }
  return number;
}

export function registerServeCommand(program: Command): void {
  withWebViaOptions(program.command("serve"))
    .description("Serve an OpenAI-compatible API and the agent API over HTTP (loopback only unless given a host, which then needs the access token)")
    .option("--host <address>", "address to listen on; anything but loopback requires the access token", DEFAULT_HOST)
    .option("--port <n>", "port to listen on (0: any free port)", String(DEFAULT_PORT))
    .option("--profile <name>", "profile whose apps the agent API acts on (default: BOTPSY_PROFILE or default)")
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice)")
    .option("--max-steps <n>", "model turns allowed per agent request (default 10)")
    .option("--rotate-token", "make a new access token (the old one stops working), print it once, then serve requiring it (on loopback too)")
    .option("--cors-origin <origin...>", "web origins allowed to call the API from a browser (default: none)")
    .option("--max-body <bytes>", "largest request body accepted (default 1048576)")
    .option("--request-timeout <seconds>", "longest a request may take (default 300)")
    .option("--eval-results <files...>", "results files of botpsy eval run that the web app's Reports screen draws")
    .action(async (options: ServeCommandOptions) => {
      const port = parseWhole("port", options.port, 0, 65_535)!;
      const threads = parseThreads(options.threads);
      const maxSteps = parseMaxSteps(options.maxSteps);
      const bodyBytes = parseWhole("max-body", options.maxBody, 1024, 256 * 1024 * 1024);
      const timeoutSeconds = parseWhole("request-timeout", options.requestTimeout, 1, 86_400);
      const home = botpsyHome();
      const loopback = isLoopbackHost(options.host);

      let accessToken: AccessToken | undefined;
      if (options.rotateToken) {
        const created = AccessToken.create(home);
        accessToken = created.accessToken;
        process.stdout.write(`New access token (shown this once; its hash is in ${accessTokenPath(home)}):\n  ${created.token}\n`);
      } else if (!loopback) {
        accessToken = AccessToken.load(home);
        if (accessToken === undefined) {
          const created = AccessToken.create(home);
          accessToken = created.accessToken;
          process.stdout.write(`Access token for clients (shown this once; keep it, or make a new one with --rotate-token):\n  ${created.token}\n`);
        }
      }

      // The same profile as botpsy run opens: config.json's web providers, and the web's way out.
      const { profile, webVia } = await openAgentProfile({ ...options, ...(options.profile !== undefined ? { profileName: options.profile } : {}) });
      let model;
      try {
        model = await createChatModel({ model: options.model, progress: true, ...(threads !== undefined ? { threads } : {}) });
      } catch (error) {
        await webVia?.close();
        profile.close();
        throw error;
      }
      let server;
      try {
        server = await startServer({
          host: options.host,
          port,
          model,
          agent: createAgentService(profile, model, maxSteps !== undefined ? { maxSteps } : {}),
          ...(accessToken ? { accessToken } : {}),
          corsOrigins: options.corsOrigin ?? [],
          evalResults: (options.evalResults ?? []).map((file) => resolve(file)),
          limits: { ...(bodyBytes !== undefined ? { bodyBytes } : {}), ...(timeoutSeconds !== undefined ? { requestTimeoutMs: timeoutSeconds * 1000 } : {}) },
        });
      } catch (error) {
        await model.dispose();
        await webVia?.close();
        profile.close();
        throw error;
      }
      process.stdout.write(`botpsy serves ${model.id} (profile ${profile.name}) at ${server.url}/v1${accessToken ? " (access token required)" : ""}\n${defaultWebRoot() ? `Web app: ${server.url}/\n` : ""}`);
      await untilStopped();
      await server.close();
      await model.dispose();
      await webVia?.close();
      profile.close();
    });
}
