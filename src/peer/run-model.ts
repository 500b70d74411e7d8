import { existsSync } from "node:fs";
import { botpsyHome, readConfig, type BotpsyConfig } from "../config.js";
import { InvalidInputError } from "../errors.js";
import { LlamaChatModel } from "../model/llama-chat-model.js";
import { isOpenAIReference, openOpenAIReference } from "../model/resolve.js";
import type { ChatModel, GenerateRequest } from "../model/types.js";
import { loadModel } from "../runtime.js";
import { assertLoopbackBootstrap, BOOTSTRAP_HELP, parseBootstrapAddress, type PeerNetworkOptions } from "./bootstrap.js";
import { PeerBootstrapError, PeerError } from "./errors.js";
import { OffloadingModel } from "./offloading-model.js";
import { checkOffloadRule } from "./offload-rule.js";
import { checkPeerName, PeerBook, peerBookPath } from "./peer-book.js";
import { PeerClient } from "./peer-client.js";
import { PeerWebFetcher } from "./web-via-peer.js";

export interface RunModelOptions {
  /** `--model`; default config.json's `model`, else the best model present. */
  model?: string;
  threads?: number;
  lora?: string;
  /** `--call-bias`; default the adapter's recorded calibration. */
  callBias?: number;
  /** `--forced-call-floor`; default the adapter's recorded one. */
  forcedCallFloor?: number | null;
  progress?: boolean;
  /** `--offload never|auto|<peer>`; default config.json's `offload.mode`, else auto once a peer is paired, else never. */
  offload?: string;
  /** `--bootstrap host:port`; default config.json's `peer.bootstrap`. Required whenever a turn may be offloaded. */
  bootstrap?: readonly string[];
  allowRemoteBootstrap?: boolean;
  /** `--peer-timeout`: how long connecting to the lender and its first reply may take (default 10 s and 5 s). */
  peerTimeoutMs?: number;
  home?: string;
  onNotice?: (text: string) => void;
}

export interface RunModel {
  model: ChatModel;
  /** Where turns may go: "never", or the lender's name and how it is chosen. */
  offload: "never" | { lender: string; mode: "always" | "auto" };
  close(): Promise<void>;
}

/** The peer network settings of a command: its flags, else config.json; refuses to go on without a bootstrap. */
export function peerNetwork(options: Pick<RunModelOptions, "bootstrap" | "allowRemoteBootstrap">, config: BotpsyConfig): PeerNetworkOptions {
  const given = options.bootstrap !== undefined && options.bootstrap.length > 0 ? options.bootstrap : (config.peer?.bootstrap ?? []);
  if (!Array.isArray(given) || given.some((entry) => typeof entry !== "string")) {
    throw new PeerBootstrapError("peer_bootstrap_invalid", `peer.bootstrap in config.json must be a list of "host:port" strings. ${BOOTSTRAP_HELP}`);
  }
  const bootstrap = given.map(parseBootstrapAddress);
  const allowRemoteBootstrap = options.allowRemoteBootstrap === true || config.peer?.allowRemoteBootstrap === true;
  if (bootstrap.length === 0 || !allowRemoteBootstrap) assertLoopbackBootstrap(bootstrap);
  return { bootstrap, allowRemoteBootstrap };
}

/**
 * The model a run plays its turns on: the local one (llama.cpp, or an
 * `openai:` server), wrapped so that turns go to a paired peer when
 * `--offload` says so (see `offload-rule.ts` for auto).
 */
export async function openRunModel(options: RunModelOptions = {}): Promise<RunModel> {
  const home = options.home ?? botpsyHome();
  const config = readConfig(home);
  const name = options.model ?? config.model;
  const choice = options.offload ?? config.offload?.mode;
  if (choice !== undefined && choice !== "never" && choice !== "auto") checkPeerName(choice);
  const book = existsSync(peerBookPath(home)) ? PeerBook.open(home) : undefined;
  const lenders = book?.lenders() ?? [];
  const mode = choice ?? (lenders.length > 0 ? "auto" : "never");
  let lender: { name: string; publicKey: string } | undefined;
  let network: PeerNetworkOptions | undefined;
  if (mode !== "never") {
    lender = mode === "auto" ? lenders[0] : book?.lender(mode);
    if (lender === undefined) {
      throw new PeerError(
        mode === "auto" ? "peer_none_paired" : "peer_unknown",
        mode === "auto"
          ? "--offload auto needs a paired peer: run botpsy peer pair <invite>, or pass --offload never."
          : `No peer is paired as "${mode}"${lenders.length > 0 ? ` (paired: ${lenders.map((entry) => entry.name).join(", ")})` : ""}. Pair it with botpsy peer pair <invite> --name ${mode}, or pass --offload never.`,
      );
    }
    // Checked before the model loads: a run that may offload never starts without a bootstrap.
    network = peerNetwork(options, config);
  }
  const rule = checkOffloadRule({
    ...(config.offload?.largerModelRatio !== undefined ? { largerModelRatio: config.offload.largerModelRatio } : {}),
    ...(config.offload?.longJobTokens !== undefined ? { longJobTokens: config.offload.longJobTokens } : {}),
  });

  const local: ChatModel = isOpenAIReference(name)
    ? await openOpenAIReference(name)
    : await loadModel({
        ...(name !== undefined ? { name } : {}),
        progress: options.progress ?? false,
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
        ...(options.lora !== undefined ? { lora: options.lora } : {}),
        ...(options.callBias !== undefined ? { callBias: options.callBias } : {}),
        ...(options.forcedCallFloor !== undefined ? { forcedCallFloor: options.forcedCallFloor } : {}),
      });
  if (lender === undefined || network === undefined || book === undefined) {
    return { model: local, offload: "never", close: () => local.dispose() };
  }
  const target = lender;
  const link = network;
  const offloading = new OffloadingModel({
    local,
    localInfo: local instanceof LlamaChatModel ? { contextSize: local.contextSize, sizeBytes: local.model.size } : { contextSize: Number.MAX_SAFE_INTEGER, sizeBytes: 0 },
    measurePrompt: local instanceof LlamaChatModel ? (request) => local.promptTokens(request).length : estimatePromptTokens,
    lenderName: target.name,
    connect: async () => {
      const timeouts = options.peerTimeoutMs !== undefined ? { connectTimeoutMs: options.peerTimeoutMs, firstReplyTimeoutMs: Math.max(5000, options.peerTimeoutMs / 2) } : {};
      const { client, value } = await PeerClient.connectAnd({ book, publicKey: target.publicKey, network: link, ...timeouts }, (opened) => opened.info());
      return { client, info: value };
    },
    mode: mode === "auto" ? "auto" : "always",
    rule,
    ...(options.onNotice !== undefined ? { onNotice: options.onNotice } : {}),
  });
  return {
    model: offloading,
    offload: { lender: target.name, mode: mode === "auto" ? "auto" : "always" },
    async close() {
      await offloading.dispose();
      await local.dispose();
    },
  };
}

/** About four characters a token: for a local backend that cannot count (an openai: server). */
function estimatePromptTokens(request: GenerateRequest): number {
  const characters = request.messages.reduce((sum, message) => sum + message.content.length, 0) + JSON.stringify(request.tools ?? []).length;
  return Math.ceil(characters / 4);
}

export function parseOffloadOption(value: string | undefined): string | undefined {
  if (value === undefined || value === "never" || value === "auto") return value;
  if (value.trim() === "") throw new InvalidInputError('--offload takes never, auto or the name of a paired peer, e.g. --offload home.');
  return checkPeerName(value);
}

export interface WebViaOptions {
  /** `--web-via here|<peer>`; default config.json's `peer.webVia`, else here. */
  webVia?: string;
  bootstrap?: readonly string[];
  allowRemoteBootstrap?: boolean;
  home?: string;
}

/**
 * Where the web apps' requests go out: undefined for this device's own
 * network, else a fetcher through the named paired peer (which must run
 * `botpsy peer serve --lend-internet`). Checked before the profile opens:
 * the peer must be paired and a bootstrap given. The link opens on the
 * first web request.
 */
export function openWebVia(options: WebViaOptions = {}): PeerWebFetcher | undefined {
  const home = options.home ?? botpsyHome();
  const config = readConfig(home);
  const configured = config.peer?.webVia;
  if (configured !== undefined && typeof configured !== "string") throw new InvalidInputError('peer.webVia in config.json must be "here" or the name of a paired peer.', { code: "invalid_config" });
  const choice = parseWebViaOption(options.webVia ?? configured) ?? "here";
  if (choice === "here") return undefined;
  const book = existsSync(peerBookPath(home)) ? PeerBook.open(home) : undefined;
  const lender = book?.lender(choice);
  if (book === undefined || lender === undefined) {
    const lenders = book?.lenders() ?? [];
    throw new PeerError(
      "peer_unknown",
      `No peer is paired as "${choice}"${lenders.length > 0 ? ` (paired: ${lenders.map((entry) => entry.name).join(", ")})` : ""}, so the web cannot go through it. Pair it with botpsy peer pair <invite> --name ${choice}, or pass --web-via here.`,
    );
  }
  const network = peerNetwork(options, config);
  return new PeerWebFetcher({
    lenderName: lender.name,
    connect: async () => (await PeerClient.connectAnd({ book, publicKey: lender.publicKey, network }, (opened) => opened.info())).client,
  });
}

export function parseWebViaOption(value: string | undefined): string | undefined {
  if (value === undefined || value === "here") return value;
  if (value.trim() === "") throw new InvalidInputError("--web-via takes here or the name of a paired peer that lends its internet, e.g. --web-via home.");
  return checkPeerName(value);
}
