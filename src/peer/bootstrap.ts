import { isIP } from "node:net";
import DHT, { type BootstrapNode } from "hyperdht";
import { PeerBootstrapError } from "./errors.js";

/** How to pass a bootstrap, for every message that asks for one. */
export const BOOTSTRAP_HELP =
  "Pass --bootstrap <host:port> (repeatable) or set peer.bootstrap in BOTPSY_HOME/config.json, e.g. the address a local testnet prints (127.0.0.1:<port>).";

/** Parses `host:port` (IPv6 as `[::1]:port`) into a bootstrap node. */
export function parseBootstrapAddress(text: string): BootstrapNode {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(text.trim()) ?? /^([^:\s]+):(\d+)$/.exec(text.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new PeerBootstrapError("peer_bootstrap_invalid", `"${text}" is not a bootstrap address; write host:port, e.g. 127.0.0.1:49737.`);
  }
  return { host: match[1]!, port };
}

export function isLoopbackAddress(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

/**
 * Throws unless there is at least one bootstrap node and every one is on
 * loopback. Called before any DHT is constructed unless the caller was told,
 * in so many words, that this DHT may reach other machines.
 */
export function assertLoopbackBootstrap(bootstrap: readonly BootstrapNode[]): void {
  if (bootstrap.length === 0) throw new PeerBootstrapError("peer_bootstrap_missing", `No DHT bootstrap was given, and botpsy never falls back to a public one. ${BOOTSTRAP_HELP}`);
  for (const node of bootstrap) {
    if (!isLoopbackAddress(node.host)) {
      throw new PeerBootstrapError(
        "peer_bootstrap_not_loopback",
        `The bootstrap ${node.host}:${node.port} is not on loopback. Only loopback bootstraps are allowed unless --allow-remote-bootstrap is given (for a bootstrap you run on your own network).`,
      );
    }
  }
}

export interface PeerNetworkOptions {
  /** Required: the DHT nodes to bootstrap from. There is no default. */
  bootstrap: readonly BootstrapNode[];
  /** Let bootstrap nodes off loopback through (your own DHT node on your network). Default false. */
  allowRemoteBootstrap?: boolean;
}

/**
 * The one place a DHT node is made. The bootstrap is checked first, and an
 * explicit list is always passed, so hyperdht's built-in public bootstrap is
 * never used. On loopback the node also binds to loopback.
 *
 * A lender's node on a loopback-only network says from the start that it is
 * reachable directly (it is: it binds 127.0.0.1, where every node that can
 * find it runs). Otherwise it starts as "firewalled" until enough DHT nodes
 * have probed it, which a small local network never does, and each device
 * then has to holepunch to it over loopback: more than half of the links
 * opened on the device while the lender never got them, and each hung for
 * the 13 s a link takes to time out. Off loopback hyperdht finds out for
 * itself, as it must.
 */
export function createDhtNode(network: PeerNetworkOptions, role: "lender" | "device" = "device"): DHT {
  if (network.bootstrap.length === 0) assertLoopbackBootstrap(network.bootstrap);
  if (network.allowRemoteBootstrap !== true) assertLoopbackBootstrap(network.bootstrap);
  const loopbackOnly = network.bootstrap.every((node) => isLoopbackAddress(node.host));
  return new DHT({
    bootstrap: network.bootstrap.map((node) => ({ host: node.host, port: node.port })),
    ...(loopbackOnly ? { host: "127.0.0.1" } : {}),
    ...(loopbackOnly && role === "lender" ? { firewalled: false } : {}),
  });
}
