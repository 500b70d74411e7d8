import type DHT from "hyperdht";
import type { NoiseSecretStream } from "hyperdht";
import type { GenerateRequest, GenerateResult } from "../model/types.js";
import { createDhtNode, type PeerNetworkOptions } from "./bootstrap.js";
import { PeerUnavailableError } from "./errors.js";
import type { PeerBook } from "./peer-book.js";
import {
  checkResult,
  checkWebPage,
  encodeFrame,
  FRAME_KIND,
  FrameReader,
  MAX_FRAME_BYTES,
  toGenerateMessage,
  type ErrorMessage,
  type LenderModelInfo,
  type PairedMessage,
  type ResultMessage,
  type WebPageMessage,
} from "./protocol.js";

export interface PeerConnectOptions {
  book: PeerBook;
  /** Hex public key of the lender. */
  publicKey: string;
  network: PeerNetworkOptions;
  /** Give up connecting after this long. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** `connectAnd`: a first reply that has not come after this long counts as a link that closed before it (and is opened again). Default 5000 ms. */
  firstReplyTimeoutMs?: number;
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * A device's link to one lender: a Noise-encrypted stream over the DHT to
 * the lender's public key (so only the holder of that key can answer), one
 * request/response frame pair per model turn.
 */
export class PeerClient {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  /** Waiters for replies without an id (info, paired), in order. */
  private readonly waitingUnnumbered: Waiter[] = [];
  private closedReason: string | undefined;
  /** Bytes written and read on the stream (payloads and headers, before encryption). */
  bytesSent = 0;
  bytesReceived = 0;

  private constructor(
    private readonly dht: DHT,
    private readonly socket: NoiseSecretStream,
  ) {
    const reader = new FrameReader(
      (_kind, length) => (length > MAX_FRAME_BYTES ? "a frame over the size limit" : undefined),
      (kind, payload) => this.receive(kind, payload),
      (reason) => this.fail(`the lender sent ${reason}`),
    );
    socket.on("data", (chunk: Buffer) => {
      this.bytesReceived += chunk.length;
      reader.push(chunk);
    });
    socket.on("error", () => undefined);
    // The lender ended its side: end ours, so the stream closes on both sides at once.
    socket.on("end", () => socket.end());
    socket.on("close", () => this.fail("the link to the lender closed"));
  }

  static async connect(options: PeerConnectOptions): Promise<PeerClient> {
    const dht = createDhtNode(options.network);
    const timeoutMs = options.connectTimeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    try {
      await dht.fullyBootstrapped();
      while (true) {
        const socket = dht.connect(Buffer.from(options.publicKey, "hex"), { keyPair: options.book.keyPair });
        try {
          await opened(socket, Math.max(1, deadline - Date.now()), timeoutMs);
          return new PeerClient(dht, socket);
        } catch (error) {
          socket.destroy();
          // A lender that just started may not be findable yet (its announcement is still spreading), or its DHT node
          // may not yet know it is reachable directly, so the first try asks for a holepunch that is then aborted.
          const code = (error as { cause?: { code?: string } }).cause?.code;
          const settling = code !== undefined && SETTLING_LENDER_CODES.has(code);
          if (!settling || Date.now() + 500 >= deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    } catch (error) {
      await dht.destroy();
      throw error;
    }
  }

  /**
   * Connects and makes a first request (`pair`, `info`). A link that closes
   * before that first reply (a lender that has just started can drop its
   * first links while its DHT node settles), or that brings nothing back
   * within `firstReplyTimeoutMs`, is opened again, up to `attempts` times
   * in all; any other failure is final. `links` says how many links it took.
   */
  static async connectAnd<T>(options: PeerConnectOptions, first: (client: PeerClient) => Promise<T>, attempts = 3): Promise<{ client: PeerClient; value: T; links: number }> {
    for (let attempt = 1; ; attempt++) {
      const client = await PeerClient.connect(options);
      try {
        return { client, value: await client.withinFirstReply(first(client), options.firstReplyTimeoutMs ?? 5000), links: attempt };
      } catch (error) {
        await client.close();
        if (!(error instanceof PeerUnavailableError && error.code === "peer_link_closed") || attempt >= attempts) throw error;
      }
    }
  }

  /**
   * The first reply, or `peer_link_closed` when nothing at all came back in
   * time: a link can open on this side while the lender never gets it (seen
   * with a fresh DHT node; the link then times out after about 13 s), and a
   * new link gets through.
   */
  private async withinFirstReply<T>(reply: Promise<T>, timeoutMs: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        if (this.bytesReceived === 0) reject(new PeerUnavailableError("peer_link_closed", `The lender did not answer on a new link within ${timeoutMs} ms.`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([reply, silent]);
    } finally {
      clearTimeout(timer);
    }
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Sends the invite's secret; resolves with the name the lender gave this device and its model. */
  pair(secret: Buffer): Promise<PairedMessage> {
    return this.requestUnnumbered(FRAME_KIND.pair, { secret: secret.toString("base64url") }) as Promise<PairedMessage>;
  }

  info(): Promise<LenderModelInfo> {
    return this.requestUnnumbered(FRAME_KIND.infoRequest, {}) as Promise<LenderModelInfo>;
  }

  /** Plays one model turn on the lender. `conversation` is an opaque key for context reuse. */
  async generate(request: GenerateRequest, conversation?: string): Promise<GenerateResult> {
    const id = this.nextId++;
    const reply = new Promise<unknown>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const onAbort = (): void => this.write(FRAME_KIND.cancel, { id });
    request.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      this.write(FRAME_KIND.generate, toGenerateMessage(id, request, conversation));
      return checkResult((await reply) as ResultMessage["result"]);
    } finally {
      request.signal?.removeEventListener("abort", onAbort);
      this.waiting.delete(id);
    }
  }

  /**
   * Asks the lender to GET `url` with its own internet (it must run with
   * --lend-internet). Resolves with the page, or rejects with the lender's
   * refusal (its code) or, when the link breaks, `peer_link_closed`.
   */
  async fetchWeb(url: string, options: { accept?: string; signal?: AbortSignal } = {}): Promise<WebPageMessage> {
    if (options.signal?.aborted === true) throw new PeerUnavailableError("peer_web_cancelled", "The fetch was cancelled here.");
    const id = this.nextId++;
    const reply = new Promise<unknown>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const onAbort = (): void => {
      this.waiting.get(id)?.reject(new PeerUnavailableError("peer_web_cancelled", "The fetch was cancelled here."));
      if (this.closedReason === undefined) this.write(FRAME_KIND.cancel, { id });
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      this.write(FRAME_KIND.webFetch, { id, url, ...(options.accept !== undefined ? { accept: options.accept } : {}) });
      return checkWebPage(await reply);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      this.waiting.delete(id);
    }
  }

  /**
   * Ends the link, so that the lender sees it close at once rather than when
   * it times out, waiting at most a second for the lender's end.
   */
  async close(): Promise<void> {
    this.fail("the link was closed here");
    if (!this.socket.destroyed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.socket.destroy();
          resolve();
        }, 1000);
        this.socket.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
        this.socket.end();
      });
    }
    await this.dht.destroy();
  }

  private requestUnnumbered(kind: typeof FRAME_KIND.pair | typeof FRAME_KIND.infoRequest, payload: unknown): Promise<unknown> {
    const reply = new Promise<unknown>((resolve, reject) => this.waitingUnnumbered.push({ resolve, reject }));
    this.write(kind, payload);
    return reply;
  }

  private write(kind: (typeof FRAME_KIND)[keyof typeof FRAME_KIND], payload: unknown): void {
    if (this.closedReason !== undefined) throw new PeerUnavailableError("peer_link_closed", `The link to the lender is gone (${this.closedReason}).`);
    const frame = encodeFrame(kind, payload);
    this.bytesSent += frame.length;
    this.socket.write(frame);
  }

  private receive(kind: number, payload: unknown): void {
    if (kind === FRAME_KIND.result) {
      const message = payload as ResultMessage;
      this.waiting.get(message.id)?.resolve(message.result);
      return;
    }
    if (kind === FRAME_KIND.webPage) {
      const id = (payload as { id?: unknown } | null)?.id;
      if (typeof id === "number") this.waiting.get(id)?.resolve(payload);
      return;
    }
    if (kind === FRAME_KIND.info || kind === FRAME_KIND.paired) {
      this.waitingUnnumbered.shift()?.resolve(payload);
      return;
    }
    if (kind === FRAME_KIND.error) {
      const message = payload as ErrorMessage;
      const error = new PeerUnavailableError(message.code, `The lender says: ${message.message}`);
      if (message.id !== undefined) this.waiting.get(message.id)?.reject(error);
      else if (this.waitingUnnumbered.length > 0) this.waitingUnnumbered.shift()?.reject(error);
      else this.fail(message.message);
      return;
    }
    // A lender that speaks out of turn is not trusted with the rest of the run.
    this.fail(`the lender sent a frame of kind ${kind}, which a lender does not send`);
    this.socket.destroy();
  }

  private fail(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    const error = new PeerUnavailableError("peer_link_closed", `The link to the lender broke off: ${reason}.`);
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    for (const waiter of this.waitingUnnumbered.splice(0)) waiter.reject(error);
  }
}

/** HyperDHT's codes for a connect that fails while a lender that just started settles; tried again until the deadline. */
const SETTLING_LENDER_CODES = new Set(["PEER_NOT_FOUND", "HOLEPUNCH_ABORTED"]);

function opened(socket: NoiseSecretStream, waitMs: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new PeerUnavailableError("peer_unreachable", `The lender did not answer within ${timeoutMs} ms. Check that botpsy peer serve runs there, with the same bootstrap.`)), waitMs);
    socket.once("open", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once("error", (error: Error) => {
      clearTimeout(timer);
      reject(new PeerUnavailableError("peer_unreachable", `Cannot reach the lender (${error.message}). Check that botpsy peer serve runs there and that this device is paired.`, { cause: error }));
    });
    socket.once("close", () => {
      clearTimeout(timer);
      reject(new PeerUnavailableError("peer_refused", "The lender closed the link before it opened: this device is not (or no longer) paired there."));
    });
  });
}
