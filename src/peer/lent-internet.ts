import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { PeerWebError } from "./errors.js";
import { MAX_LENT_PAGE_BYTES } from "./protocol.js";

/** How a lender lends its internet (`peer serve --lend-internet`). */
export interface LendInternetOptions {
  /**
   * "host:port" pairs the lender may fetch although they are on loopback, a
   * private network or link-local (a service of yours you mean to share).
   * Default none: every such address is refused.
   */
  allowHosts?: readonly string[];
  /** The most bytes of one answer. Default (and at most) MAX_LENT_PAGE_BYTES, 2 MiB. */
  maxBytes?: number;
  /** Give up on one fetch (redirects included) after this long. Default 10 000 ms. */
  timeoutMs?: number;
  /** Redirects followed, each checked like the first URL. Default 5. */
  maxRedirects?: number;
}

/** What the lender fetched for a device. */
export interface LentFetchResult {
  status: number;
  contentType: string;
  body: string;
  bytes: number;
  finalUrl: string;
}

export const DEFAULT_LENT_FETCH_TIMEOUT_MS = 10_000;
const DEFAULT_ACCEPT = "text/html, application/json, application/rss+xml, */*;q=0.5";

/**
 * Addresses a lent fetch never reaches unless their host:port is allowed:
 * the lender itself, its local networks, link-local (cloud metadata
 * services), carrier NAT, multicast, reserved and unspecified ranges.
 */
const LOCAL_ADDRESSES = (() => {
  const list = new BlockList();
  const ipv4: [string, number][] = [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ];
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, "ipv4");
  const ipv6: [string, number][] = [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
  ];
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, "ipv6");
  return list;
})();

/** True for an address of the lender itself or its local networks (IPv4-mapped IPv6 included). */
export function isLocalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return LOCAL_ADDRESSES.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** `host:port` as `--lend-internet-allow-host` takes it, normalised as a URL writes it ("[::1]:8080", "127.0.0.1:8080"). */
export function parseAllowedHost(text: string): string {
  const trimmed = text.trim();
  let parsed: URL | undefined;
  try {
    parsed = /^[^/?#@\s]+:\d+$/.test(trimmed) ? new URL(`http://${trimmed}`) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.port === "" || parsed.hostname === "") {
    throw new PeerWebError("peer_web_allow_host_invalid", `"${text}" is not a host:port to allow; write it as host:port, e.g. 127.0.0.1:8080 or [::1]:8080 (the port is required).`);
  }
  return `${parsed.hostname}:${parsed.port}`;
}

function hostPort(url: URL): string {
  return `${url.hostname}:${url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"}`;
}

/** The lender's own web client for its devices: GET only, http(s) only, never its local networks unless allowed, size- and time-capped. */
export class LentInternet {
  private readonly allowHosts: ReadonlySet<string>;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;

  constructor(options: LendInternetOptions = {}) {
    this.allowHosts = new Set((options.allowHosts ?? []).map(parseAllowedHost));
    this.maxBytes = Math.min(options.maxBytes ?? MAX_LENT_PAGE_BYTES, MAX_LENT_PAGE_BYTES);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_LENT_FETCH_TIMEOUT_MS;
    this.maxRedirects = options.maxRedirects ?? 5;
  }

  /** GET `url` (following redirects, each checked), or throw a PeerWebError that says why not. */
  async fetch(url: string, accept: string | undefined, signal: AbortSignal): Promise<LentFetchResult> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    let current = this.check(url);
    for (let redirects = 0; ; redirects++) {
      let response: IncomingMessage;
      try {
        response = await this.get(current, accept ?? DEFAULT_ACCEPT, combined);
      } catch (error) {
        throw this.failure(error, current, timeout);
      }
      const location = response.headers.location;
      if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location !== undefined) {
        response.resume();
        if (redirects >= this.maxRedirects) throw new PeerWebError("peer_web_refused", `${url} redirects more than ${this.maxRedirects} times; the lender stopped following it.`);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new PeerWebError("peer_web_failed", `${current.href} redirects to "${location}", which is not a URL.`);
        }
        current = this.check(next.href);
        continue;
      }
      const bytes = await this.readCapped(response, current, timeout);
      return {
        status: response.statusCode ?? 0,
        contentType: String(response.headers["content-type"] ?? "").slice(0, 256),
        body: bytes.toString("utf8"),
        bytes: bytes.length,
        finalUrl: current.href,
      };
    }
  }

  /** The URL's scheme, credentials and (for an IP literal) address; a host name's addresses are checked when it is resolved. */
  private check(url: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new PeerWebError("peer_web_refused", `"${url.slice(0, 200)}" is not a URL; the lender fetches only http:// and https:// addresses.`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new PeerWebError("peer_web_refused", `The lender fetches only http:// and https:// addresses, not ${parsed.protocol}.`);
    }
    if (parsed.username !== "" || parsed.password !== "") throw new PeerWebError("peer_web_refused", "The lender does not fetch URLs with a user name or password in them.");
    const literal = parsed.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal) !== 0 && isLocalAddress(literal) && !this.allowHosts.has(hostPort(parsed))) throw this.localRefusal(parsed, literal);
    return parsed;
  }

  private localRefusal(url: URL, address: string): PeerWebError {
    return new PeerWebError(
      "peer_web_refused",
      `${url.host} is the lender's own or a local-network address (${address}); a lent internet never reaches those. On the lender, allow it with --lend-internet-allow-host ${hostPort(url)} if you mean to share it.`,
    );
  }

  private get(url: URL, accept: string, signal: AbortSignal): Promise<IncomingMessage> {
    const allowed = this.allowHosts.has(hostPort(url));
    // Every address a name resolves to is checked where the socket connects, so a name cannot point elsewhere between a check and the connection.
    const lookup: LookupFunction = (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, "", 0);
        const local = allowed ? undefined : addresses.find((entry) => isLocalAddress(entry.address));
        if (local !== undefined) return callback(this.localRefusal(url, local.address), "", 0);
        if (options.all === true) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0];
        if (first === undefined) return callback(new PeerWebError("peer_web_failed", `${url.hostname} has no address.`), "", 0);
        callback(null, first.address, first.family);
      });
    };
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(url, {
        method: "GET",
        headers: { accept, "accept-encoding": "identity", "user-agent": "botpsy-peer (lent internet)" },
        lookup,
        signal,
        agent: false,
      });
      request.once("response", resolve);
      request.once("error", reject);
      request.end();
    });
  }

  private async readCapped(response: IncomingMessage, url: URL, timeout: AbortSignal): Promise<Buffer> {
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      response.destroy();
      throw this.tooLarge(url, `${declared} bytes`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > this.maxBytes) {
          response.destroy();
          throw this.tooLarge(url, `more than ${this.maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      throw this.failure(error, url, timeout);
    }
    return Buffer.concat(chunks);
  }

  private tooLarge(url: URL, size: string): PeerWebError {
    return new PeerWebError("peer_web_too_large", `${url.href} is ${size}, over the ${this.maxBytes}-byte limit of a lent fetch; nothing of it was sent. Open a smaller page.`);
  }

  private failure(error: unknown, url: URL, timeout: AbortSignal): PeerWebError {
    if (error instanceof PeerWebError) return error;
    if (timeout.aborted) return new PeerWebError("peer_web_timeout", `${url.host} did not answer the lender within ${this.timeoutMs} ms. Retry later.`);
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof PeerWebError) return cause;
    const message = error instanceof Error ? error.message : String(error);
    return new PeerWebError("peer_web_failed", `The lender could not fetch ${url.host} (${message}). Retry later or check the address.`, { cause: error });
  }
}
