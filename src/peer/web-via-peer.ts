import type { WebFetcher, WebFetchRequest, WebFetchResponse } from "../apps/app.js";
import { BotpsyError } from "../errors.js";
import { ToolError } from "../tools/tool.js";
import type { PeerClient } from "./peer-client.js";

/**
 * A page that came back through the lender, as the device records it. (A
 * request that failed is on the record as the call's error, which names the
 * peer.)
 */
export interface PeerWebRecord {
  url: string;
  lender: string;
  /** The HTTP status the lender relayed. */
  status: number;
}

export interface PeerWebFetcherOptions {
  /** The lender's name in the peer book (for messages). */
  lenderName: string;
  /** Opens a link to the lender (on the first fetch, and again after the link broke). */
  connect: () => Promise<PeerClient>;
}

/**
 * The apps' web requests sent through a paired computer that lends its
 * internet (`run --web-via <peer>`): the device's own network is never used
 * for them. A lender that refuses, cannot be reached, or drops the link
 * mid-fetch turns into a ToolError that says so; the web tools only read, so
 * a failed fetch leaves nothing half done.
 */
export class PeerWebFetcher {
  private client: PeerClient | undefined;
  private connecting: Promise<PeerClient> | undefined;
  private closed = false;

  /** Told of every page that came back through the lender (the device's audit log records them). A listener that throws is ignored. */
  onRequest: ((record: PeerWebRecord) => void) | undefined;

  constructor(private readonly options: PeerWebFetcherOptions) {}

  get lenderName(): string {
    return this.options.lenderName;
  }

  /** The fetcher to give the profile (`Profile.open({ webFetcher })`). */
  readonly fetch: WebFetcher = (request) => this.fetchThroughPeer(request);

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.close();
  }

  /**
   * Starts opening the link now (a run calls it as it starts, so its first
   * web request does not wait for the DHT); a failure here is only reported
   * by the fetch that needs the link.
   */
  prepare(): void {
    void this.link().catch(() => undefined);
  }

  private async fetchThroughPeer(request: WebFetchRequest): Promise<WebFetchResponse> {
    const client = await this.linkWithin(request);
    try {
      const page = await client.fetchWeb(request.url, { accept: request.accept, signal: request.signal });
      this.report({ url: request.url, lender: this.options.lenderName, status: page.status });
      return { status: page.status, body: page.body };
    } catch (error) {
      if (request.signal.aborted) throw this.stopped(request);
      throw this.toolError(error);
    }
  }

  private report(record: PeerWebRecord): void {
    try {
      this.onRequest?.(record);
    } catch {
      // The record is a side note: a failing listener does not fail the page.
    }
  }

  /** The tool call's signal ended the fetch: its time ran out, or the run was stopped. */
  private stopped(request: WebFetchRequest): ToolError {
    const reason: unknown = request.signal.reason;
    const host = URL.canParse(request.url) ? new URL(request.url).host : request.url.slice(0, 100);
    if (reason instanceof Error && reason.name === "TimeoutError") {
      return new ToolError("peer_web_timeout", `${host} did not answer through peer ${this.options.lenderName} in the time a web request has. Retry later.`);
    }
    return new ToolError("peer_web_cancelled", `The request to ${host} through peer ${this.options.lenderName} was stopped.`);
  }

  /** The link, or a ToolError once the tool call's signal ends the wait for it. */
  private linkWithin(request: WebFetchRequest): Promise<PeerClient> {
    if (request.signal.aborted) return Promise.reject(this.stopped(request));
    return new Promise<PeerClient>((resolve, reject) => {
      const onAbort = (): void => reject(this.stopped(request));
      request.signal.addEventListener("abort", onAbort, { once: true });
      this.link().then(
        (client) => {
          request.signal.removeEventListener("abort", onAbort);
          resolve(client);
        },
        (error: unknown) => {
          request.signal.removeEventListener("abort", onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private async link(): Promise<PeerClient> {
    if (this.closed) throw new ToolError("peer_web_unavailable", `The link to peer ${this.options.lenderName} for web requests was closed; start the run again.`);
    if (this.client !== undefined && !this.client.closed) return this.client;
    const stale = this.client;
    this.client = undefined;
    void stale?.close().catch(() => undefined);
    const connecting = (this.connecting ??= this.options.connect());
    try {
      const client = await connecting;
      if (this.closed) {
        await client.close();
        throw new ToolError("peer_web_unavailable", `The link to peer ${this.options.lenderName} for web requests was closed; start the run again.`);
      }
      this.client = client;
      return client;
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw this.toolError(error);
    } finally {
      if (this.connecting === connecting) this.connecting = undefined;
    }
  }

  private toolError(error: unknown): ToolError {
    const name = this.options.lenderName;
    const said = error instanceof Error ? error.message : String(error);
    const code = error instanceof BotpsyError ? error.code : "peer_web_unavailable";
    if (code === "peer_internet_not_lent" || code.startsWith("peer_web_")) {
      return new ToolError(code, `Peer ${name} did not fetch it: ${said.replace(/^The lender says: /, "")} (The web goes through ${name} because of --web-via ${name}; this device's own network is not used instead.)`);
    }
    return new ToolError(
      "peer_web_unavailable",
      `The web goes through peer ${name} (--web-via ${name}), and ${name} cannot be reached now (${said}). This device's own network is not used instead: check that botpsy peer serve --lend-internet runs there, or run with --web-via here.`,
    );
  }
}
