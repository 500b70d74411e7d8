// The parts of hyperswarm, hyperdht and @hyperswarm/testnet that botpsy uses (they ship no types).

declare module "hyperdht" {
  import type { EventEmitter } from "node:events";
  import type { Duplex } from "node:stream";

  export interface KeyPair {
    publicKey: Buffer;
    secretKey: Buffer;
  }

  export interface BootstrapNode {
    host: string;
    port: number;
  }

  /** A Noise-encrypted stream; `remotePublicKey` is the key the other side proved it holds. */
  export interface NoiseSecretStream extends Duplex {
    readonly remotePublicKey: Buffer;
    readonly publicKey: Buffer;
    readonly rawBytesWritten?: number;
    readonly rawBytesRead?: number;
    opened: Promise<boolean>;
  }

  export interface DHTOptions {
    bootstrap: BootstrapNode[] | string[];
    host?: string;
    port?: number;
    keyPair?: KeyPair;
    ephemeral?: boolean;
    firewalled?: boolean;
  }

  export default class DHT extends EventEmitter {
    constructor(options: DHTOptions);
    static keyPair(seed?: Buffer): KeyPair;
    readonly defaultKeyPair: KeyPair;
    connect(remotePublicKey: Buffer, options?: { keyPair?: KeyPair }): NoiseSecretStream;
    fullyBootstrapped(): Promise<void>;
    destroy(options?: { force?: boolean }): Promise<void>;
  }
}

declare module "hyperswarm" {
  import type { EventEmitter } from "node:events";
  import type DHT from "hyperdht";
  import type { KeyPair, NoiseSecretStream } from "hyperdht";

  export interface PeerInfo {
    publicKey: Buffer;
    ban(banned?: boolean): void;
    banned: boolean;
  }

  export interface HyperswarmOptions {
    keyPair?: KeyPair;
    dht: DHT;
    /** Return true to refuse the connection. */
    firewall?: (remotePublicKey: Buffer, payload: unknown) => boolean;
    maxPeers?: number;
  }

  export default class Hyperswarm extends EventEmitter {
    constructor(options: HyperswarmOptions);
    readonly keyPair: KeyPair;
    readonly dht: DHT;
    readonly connections: Set<NoiseSecretStream>;
    readonly peers: Map<string, PeerInfo>;
    listen(): Promise<void>;
    destroy(options?: { force?: boolean }): Promise<void>;
    on(event: "connection", listener: (socket: NoiseSecretStream, info: PeerInfo) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}

declare module "@hyperswarm/testnet" {
  import type DHT from "hyperdht";
  import type { BootstrapNode } from "hyperdht";

  export interface Testnet {
    nodes: DHT[];
    bootstrap: BootstrapNode[];
    destroy(): Promise<void>;
  }

  export default function createTestnet(size?: number, options?: { host?: string; port?: number }): Promise<Testnet>;
}
