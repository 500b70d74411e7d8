import { appendFileSync } from "node:fs";
import Hyperswarm from "hyperswarm";
import type { NoiseSecretStream } from "hyperdht";
import { BotpsyError } from "../errors.js";
import type { ChatModel } from "../model/types.js";
import { createDhtNode, type PeerNetworkOptions } from "./bootstrap.js";
import { LentInternet, type LendInternetOptions } from "./lent-internet.js";
import type { PeerBook } from "./peer-book.js";
import {
  checkGenerateMessage,
  checkWebFetchMessage,
  encodeFrame,
  FRAME_KIND,
  FrameReader,
  MAX_FRAME_BYTES,
  MAX_PAIRING_FRAME_BYTES,
  MAX_WEB_FETCH_FRAME_BYTES,
  type CancelMessage,
  type ErrorMessage,
  type GenerateMessage,
  type LenderModelInfo,
  type PairMessage,
  type WebFetchMessage,
  type WebPageMessage,
} from "./protocol.js";

/** One thing the lender received, as its log records it. */
export type ReceivedEntry =
  | { at: string; event: "generate"; from: string; bytes: number; request: GenerateMessage }
  | { at: string; event: "paired"; from: string }
  /** A web fetch for a device: what was fetched and how many bytes went back, or why it was refused. */
  | { at: string; event: "web-fetch"; from: string; url: string; status?: number; bytes: number; refused?: { code: string; reason: string } }
  | { at: string; event: "refused"; from: string; reason: string };

export interface PeerServerOptions {
  book: PeerBook;
  model: ChatModel;
  modelInfo: LenderModelInfo;
  network: PeerNetworkOptions;
  /** Append each received model turn (whole) and each refusal, one JSON line each. Default: nowhere. */
  receivedLogPath?: string;
  /** Told of everything received (a one-line summary is the CLI's). */
  onReceived?: (entry: ReceivedEntry) => void;
  /** How often the peer book is checked for removed peers. Default 250 ms. */
  revocationCheckMs?: number;
  /** A device that connects on an invite must pair within this long. Default 15 000 ms. */
  pairingTimeoutMs?: number;
  /**
   * Lend this computer's internet to paired devices for their web tools
   * (`--lend-internet`): GETs of http(s) pages, capped, never to this
   * computer's own or local-network addresses unless allowed. Default: not lent.
   */
  lendInternet?: LendInternetOptions;
}

interface Link {
  socket: NoiseSecretStream;
  publicKey: string;
  /** "paired": may send model turns; "pairing": may send one pair frame. */
  state: "paired" | "pairing";
  inFlight: Map<number, AbortController>;
  /** Web fetches this device has running here (at most MAX_WEB_FETCHES_PER_DEVICE). */
  webFetches: number;
  pairingTimer?: NodeJS.Timeout;
}

/** Web fetches one device may have running on the lender at once. */
export const MAX_WEB_FETCHES_PER_DEVICE = 4;

/**
 * `botpsy peer serve`: lends a loaded model to the devices in the peer book.
 * The swarm's firewall refuses any key that is neither paired nor arriving
 * while an invite is pending, so an unknown device never gets a connection;
 * a device on an invite may only send its pair frame; a peer removed from
 * the book is cut off at once (its live links are closed, and every frame is
 * checked against the book before it is read).
 */
export class PeerServer {
  private readonly links = new Set<Link>();
  private bookChangedAt: number;
  private revocationTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly options: PeerServerOptions,
    private readonly swarm: Hyperswarm,
    /** This computer's web client for its devices; undefined while it does not lend its internet. */
    private readonly internet: LentInternet | undefined,
  ) {
    this.bookChangedAt = options.book.changedAt();
  }

  static async start(options: PeerServerOptions): Promise<PeerServer> {
    const keyPair = options.book.keyPair;
    // Made first, so a bad allow-list entry is refused before anything listens.
    const internet = options.lendInternet !== undefined ? new LentInternet(options.lendInternet) : undefined;
    const dht = createDhtNode(options.network, "lender");
    // The firewall needs the server, and the server the swarm: refuse everyone until both exist.
    const holder: { server?: PeerServer } = {};
    const swarm = new Hyperswarm({
      dht,
      keyPair,
      firewall: (remotePublicKey) => holder.server?.refuses(remotePublicKey.toString("hex")) ?? true,
    });
    const server = new PeerServer(options, swarm, internet);
    holder.server = server;
    swarm.on("connection", (socket, _info) => server.accept(socket));
    try {
      await dht.fullyBootstrapped();
      await swarm.listen();
    } catch (error) {
      await swarm.destroy();
      throw error;
    }
    server.revocationTimer = setInterval(() => server.checkBook(), options.revocationCheckMs ?? 250);
    server.revocationTimer.unref();
    return server;
  }

  get publicKey(): string {
    return this.options.book.publicKey;
  }

  /** Live links (for tests and the status line). */
  get connectionCount(): number {
    return this.links.size;
  }

  async close(): Promise<void> {
    if (this.revocationTimer !== undefined) clearInterval(this.revocationTimer);
    for (const link of this.links) this.drop(link, "the lender is shutting down");
    await this.swarm.destroy();
  }

  /** The firewall: true refuses. Runs before the connection opens, so nothing of the sender is read. */
  private refuses(publicKey: string): boolean {
    this.refreshBook();
    const book = this.options.book;
    const allowed = book.borrowerByKey(publicKey) !== undefined || book.hasPendingInvite();
    if (!allowed) this.record({ at: new Date().toISOString(), event: "refused", from: publicKey, reason: "not paired" });
    return !allowed;
  }

  private refreshBook(): boolean {
    const changedAt = this.options.book.changedAt();
    if (changedAt === this.bookChangedAt) return false;
    this.bookChangedAt = changedAt;
    this.options.book.reload();
    // A device refused before it was paired was banned by the swarm; pairing lifts that.
    for (const borrower of this.options.book.borrowers()) this.swarm.peers.get(borrower.publicKey)?.ban(false);
    return true;
  }

  private checkBook(): void {
    if (!this.refreshBook()) return;
    for (const link of this.links) {
      if (link.state === "paired" && this.options.book.borrowerByKey(link.publicKey) === undefined) {
        this.record({ at: new Date().toISOString(), event: "refused", from: link.publicKey, reason: "removed from the peer book" });
        this.drop(link, "this device was removed from the lender's peers");
      }
    }
  }

  private accept(socket: NoiseSecretStream): void {
    const publicKey = socket.remotePublicKey.toString("hex");
    this.refreshBook();
    const paired = this.options.book.borrowerByKey(publicKey) !== undefined;
    if (!paired && !this.options.book.hasPendingInvite()) {
      socket.destroy();
      return;
    }
    const link: Link = { socket, publicKey, state: paired ? "paired" : "pairing", inFlight: new Map(), webFetches: 0 };
    if (!paired) {
      link.pairingTimer = setTimeout(() => this.drop(link, "no pairing within the time allowed"), this.options.pairingTimeoutMs ?? 15_000);
      link.pairingTimer.unref();
    }
    this.links.add(link);
    const reader = new FrameReader(
      (kind, length) => this.admit(link, kind, length),
      (kind, payload) => void this.handle(link, kind, payload),
      (reason) => {
        this.record({ at: new Date().toISOString(), event: "refused", from: this.nameOf(link), reason });
        this.drop(link, reason);
      },
    );
    socket.on("data", (chunk: Buffer) => reader.push(chunk));
    socket.on("error", () => undefined);
    // The device ended its side: end ours, so the link closes on both sides now, not after a timeout.
    socket.on("end", () => socket.end());
    socket.on("close", () => {
      for (const controller of link.inFlight.values()) controller.abort();
      if (link.pairingTimer !== undefined) clearTimeout(link.pairingTimer);
      this.links.delete(link);
    });
  }

  /** Each frame's header is checked before its payload is read. */
  private admit(link: Link, kind: number, length: number): string | undefined {
    if (link.state === "pairing") {
      if (kind !== FRAME_KIND.pair) return "a frame other than pair from a device that is not paired";
      if (length > MAX_PAIRING_FRAME_BYTES) return "a pair frame over its size limit";
      return undefined;
    }
    this.refreshBook();
    if (this.options.book.borrowerByKey(link.publicKey) === undefined) return "a frame from a device removed from the peer book";
    if (kind !== FRAME_KIND.generate && kind !== FRAME_KIND.infoRequest && kind !== FRAME_KIND.cancel && kind !== FRAME_KIND.webFetch) return `a frame of kind ${kind}, which a device does not send`;
    if (kind === FRAME_KIND.webFetch && length > MAX_WEB_FETCH_FRAME_BYTES) return "a web fetch frame over its size limit";
    if (length > MAX_FRAME_BYTES) return "a frame over the size limit";
    return undefined;
  }

  private async handle(link: Link, kind: number, payload: unknown): Promise<void> {
    if (kind === FRAME_KIND.pair) return this.pair(link, payload as PairMessage);
    if (kind === FRAME_KIND.infoRequest) return this.send(link, FRAME_KIND.info, this.options.modelInfo);
    if (kind === FRAME_KIND.cancel) {
      link.inFlight.get((payload as CancelMessage).id)?.abort();
      return;
    }
    if (kind === FRAME_KIND.webFetch) return this.fetchWeb(link, payload);
    let message: GenerateMessage;
    try {
      message = checkGenerateMessage(payload);
    } catch (error) {
      return this.send(link, FRAME_KIND.error, errorMessageOf(error));
    }
    this.record({ at: new Date().toISOString(), event: "generate", from: this.nameOf(link), bytes: Buffer.byteLength(JSON.stringify(payload)), request: message });
    const controller = new AbortController();
    link.inFlight.set(message.id, controller);
    try {
      const generation = this.options.model.generate({
        ...message.options,
        messages: message.messages,
        ...(message.tools !== undefined ? { tools: message.tools } : {}),
        signal: controller.signal,
        // Each device's conversations are kept apart.
        ...(message.conversation !== undefined ? { conversationId: `${link.publicKey.slice(0, 16)}:${message.conversation}` } : {}),
      });
      const result = await generation.result;
      this.send(link, FRAME_KIND.result, { id: message.id, result });
    } catch (error) {
      this.send(link, FRAME_KIND.error, { id: message.id, ...errorMessageOf(error) });
    } finally {
      link.inFlight.delete(message.id);
    }
  }

  private async fetchWeb(link: Link, payload: unknown): Promise<void> {
    const id = typeof (payload as { id?: unknown } | null)?.id === "number" ? (payload as { id: number }).id : undefined;
    const url = String((payload as { url?: unknown } | null)?.url ?? "").slice(0, 300);
    const refuse = (code: string, reason: string): void => {
      this.record({ at: new Date().toISOString(), event: "web-fetch", from: this.nameOf(link), url, bytes: 0, refused: { code, reason } });
      this.send(link, FRAME_KIND.error, { ...(id !== undefined ? { id } : {}), code, message: reason } satisfies ErrorMessage);
    };
    if (this.internet === undefined) {
      return refuse("peer_internet_not_lent", "This computer does not lend its internet. Start botpsy peer serve with --lend-internet here to allow it, or run the device's web tools on its own network.");
    }
    let message: WebFetchMessage;
    try {
      message = checkWebFetchMessage(payload);
    } catch (error) {
      const { code, message: reason } = errorMessageOf(error);
      return refuse(code, reason);
    }
    if (link.webFetches >= MAX_WEB_FETCHES_PER_DEVICE) {
      return refuse("peer_web_busy", `This device already has ${MAX_WEB_FETCHES_PER_DEVICE} web fetches running on the lender; wait for one to finish, then retry.`);
    }
    const controller = new AbortController();
    link.inFlight.set(message.id, controller);
    link.webFetches++;
    try {
      const page = await this.internet.fetch(message.url, message.accept, controller.signal);
      this.record({ at: new Date().toISOString(), event: "web-fetch", from: this.nameOf(link), url: message.url, status: page.status, bytes: page.bytes });
      const reply: WebPageMessage = {
        id: message.id,
        status: page.status,
        contentType: page.contentType,
        body: page.body,
        bytes: page.bytes,
        ...(page.finalUrl !== message.url ? { finalUrl: page.finalUrl.slice(0, 4096) } : {}),
      };
      this.send(link, FRAME_KIND.webPage, reply);
    } catch (error) {
      const { code, message: reason } = errorMessageOf(error);
      refuse(code, reason);
    } finally {
      link.webFetches--;
      link.inFlight.delete(message.id);
    }
  }

  private pair(link: Link, message: PairMessage): void {
    if (link.state === "paired") return this.send(link, FRAME_KIND.error, { code: "peer_already_paired", message: "This device is already paired." });
    try {
      const borrower = this.options.book.redeemInvite(Buffer.from(String(message.secret), "base64url"), link.publicKey);
      this.bookChangedAt = this.options.book.changedAt();
      link.state = "paired";
      if (link.pairingTimer !== undefined) clearTimeout(link.pairingTimer);
      this.record({ at: new Date().toISOString(), event: "paired", from: borrower.name });
      this.send(link, FRAME_KIND.paired, { name: borrower.name, model: this.options.modelInfo });
    } catch (error) {
      this.send(link, FRAME_KIND.error, errorMessageOf(error));
      this.drop(link, "a pair frame with an invite that does not work");
    }
  }

  private send(link: Link, kind: (typeof FRAME_KIND)[keyof typeof FRAME_KIND], payload: unknown): void {
    if (link.socket.destroyed) return;
    link.socket.write(encodeFrame(kind, payload));
  }

  private drop(link: Link, reason: string): void {
    if (!link.socket.destroyed) {
      link.socket.end(encodeFrame(FRAME_KIND.error, { code: "peer_refused", message: `The lender closed the link: ${reason}.` } satisfies ErrorMessage));
      // end() waits for the other side; a refused link must not linger.
      setTimeout(() => link.socket.destroy(), 200).unref();
    }
    for (const controller of link.inFlight.values()) controller.abort();
    this.links.delete(link);
  }

  private nameOf(link: Link): string {
    return this.options.book.borrowerByKey(link.publicKey)?.name ?? link.publicKey;
  }

  private record(entry: ReceivedEntry): void {
    if (this.options.receivedLogPath !== undefined) appendFileSync(this.options.receivedLogPath, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    this.options.onReceived?.(entry);
  }
}

function errorMessageOf(error: unknown): ErrorMessage {
  if (error instanceof BotpsyError) return { code: error.code, message: error.message };
  return { code: "peer_model_failed", message: error instanceof Error ? error.message : String(error) };
}
