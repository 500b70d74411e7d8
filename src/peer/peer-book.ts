import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import DHT, { type KeyPair } from "hyperdht";
import { PeerError, PeerInviteError } from "./errors.js";

/** A computer this one may send model turns to (it lends us its model). */
export interface Lender {
  name: string;
  /** Hex of its Noise public key. */
  publicKey: string;
  pairedAt: string;
}

/** A device this computer lends its model to. */
export interface Borrower {
  name: string;
  publicKey: string;
  pairedAt: string;
}

/** An invite not yet used: only the hash of its secret is kept. */
export interface PendingInvite {
  secretSha256: string;
  /** The name the device will have here once paired. */
  forName: string;
  expiresAt: string;
}

interface PeerBookFile {
  version: 1;
  /** Seed of this computer's key pair (hex, 32 bytes). */
  identitySeed: string;
  lenders: Lender[];
  borrowers: Borrower[];
  invites: PendingInvite[];
}

/** Where the peer book lives: BOTPSY_HOME/peers.json, mode 0600 (it holds this computer's secret key seed). */
export function peerBookPath(home: string): string {
  return join(home, "peers.json");
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

export function checkPeerName(name: string): string {
  if (!NAME.test(name)) throw new PeerError("peer_name_invalid", `"${name}" is not a peer name: use 1 to 40 letters, digits, ".", "_" or "-", starting with a letter or digit.`);
  return name;
}

/**
 * The peers of this BOTPSY_HOME: its own key pair, the computers it may
 * offload to (lenders), the devices it lends its model to (borrowers), and
 * invites not yet used. One JSON file, written whole (temp file, then
 * rename), so a reader never sees half of it; `peer serve` re-reads it when
 * it changes, so a peer removed by `botpsy peer rm` is refused at once.
 */
export class PeerBook {
  private constructor(
    readonly path: string,
    private data: PeerBookFile,
  ) {}

  /** Opens (or creates, with a new key pair) the book of `home`. */
  static open(home: string): PeerBook {
    const path = peerBookPath(home);
    if (!existsSync(path)) {
      const book = new PeerBook(path, { version: 1, identitySeed: randomBytes(32).toString("hex"), lenders: [], borrowers: [], invites: [] });
      book.save();
      return book;
    }
    return new PeerBook(path, readBook(path));
  }

  /** Reads the file again (another command may have changed it). */
  reload(): void {
    this.data = readBook(this.path);
  }

  /** The file's change time, to notice another command's edits cheaply. */
  changedAt(): number {
    return existsSync(this.path) ? statSync(this.path).mtimeMs : 0;
  }

  get keyPair(): KeyPair {
    return DHT.keyPair(Buffer.from(this.data.identitySeed, "hex"));
  }

  get publicKey(): string {
    return this.keyPair.publicKey.toString("hex");
  }

  lenders(): readonly Lender[] {
    return this.data.lenders;
  }

  borrowers(): readonly Borrower[] {
    return this.data.borrowers;
  }

  lender(name: string): Lender | undefined {
    return this.data.lenders.find((lender) => lender.name === name);
  }

  borrowerByKey(publicKey: string): Borrower | undefined {
    return this.data.borrowers.find((borrower) => borrower.publicKey === publicKey);
  }

  hasPendingInvite(now = new Date()): boolean {
    return this.data.invites.some((invite) => Date.parse(invite.expiresAt) > now.getTime());
  }

  /** Makes a one-time invite secret for a device to be called `forName`; the secret is returned once. */
  createInvite(forName: string, lifetimeMs: number, now = new Date()): { secret: Buffer; expiresAt: Date } {
    checkPeerName(forName);
    if (this.data.borrowers.some((borrower) => borrower.name === forName)) {
      throw new PeerError("peer_name_taken", `A device is already paired as "${forName}". Remove it first (botpsy peer rm ${forName}) or choose another name with --name.`);
    }
    const secret = randomBytes(16);
    const expiresAt = new Date(now.getTime() + lifetimeMs);
    this.data.invites = this.data.invites.filter((invite) => Date.parse(invite.expiresAt) > now.getTime());
    this.data.invites.push({ secretSha256: sha256Hex(secret), forName, expiresAt: expiresAt.toISOString() });
    this.save();
    return { secret, expiresAt };
  }

  /**
   * Uses an invite: when the secret matches one not expired, it is removed
   * (one use) and the device's key becomes a borrower under the invite's name.
   */
  redeemInvite(secret: Buffer, devicePublicKey: string, now = new Date()): Borrower {
    this.reload();
    const hash = Buffer.from(sha256Hex(secret), "hex");
    const index = this.data.invites.findIndex((invite) => timingSafeEqual(Buffer.from(invite.secretSha256, "hex"), hash));
    const invite = index >= 0 ? this.data.invites[index] : undefined;
    if (invite === undefined) throw new PeerInviteError("peer_invite_unknown", "This invite is not known here or was already used. Make a new one with botpsy peer invite.");
    this.data.invites.splice(index, 1);
    if (Date.parse(invite.expiresAt) <= now.getTime()) {
      this.save();
      throw new PeerInviteError("peer_invite_expired", `This invite expired at ${invite.expiresAt}. Make a new one with botpsy peer invite.`);
    }
    const borrower: Borrower = { name: invite.forName, publicKey: devicePublicKey, pairedAt: now.toISOString() };
    this.data.borrowers = this.data.borrowers.filter((existing) => existing.publicKey !== devicePublicKey && existing.name !== invite.forName);
    this.data.borrowers.push(borrower);
    this.save();
    return borrower;
  }

  addLender(name: string, publicKey: string, now = new Date()): Lender {
    checkPeerName(name);
    if (!/^[0-9a-f]{64}$/.test(publicKey)) throw new PeerError("peer_key_invalid", `"${publicKey}" is not a public key (64 hex digits).`);
    this.reload();
    const lender: Lender = { name, publicKey, pairedAt: now.toISOString() };
    this.data.lenders = this.data.lenders.filter((existing) => existing.name !== name && existing.publicKey !== publicKey);
    this.data.lenders.push(lender);
    this.save();
    return lender;
  }

  /** Removes every peer (lender or borrower) of that name; returns what was removed. */
  remove(name: string): { lenders: Lender[]; borrowers: Borrower[] } {
    this.reload();
    const lenders = this.data.lenders.filter((lender) => lender.name === name);
    const borrowers = this.data.borrowers.filter((borrower) => borrower.name === name);
    this.data.lenders = this.data.lenders.filter((lender) => lender.name !== name);
    this.data.borrowers = this.data.borrowers.filter((borrower) => borrower.name !== name);
    if (lenders.length + borrowers.length > 0) this.save();
    return { lenders, borrowers };
  }

  private save(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.path);
  }
}

function readBook(path: string): PeerBookFile {
  if (process.platform !== "win32" && (statSync(path).mode & 0o077) !== 0) {
    throw new PeerError("peer_book_exposed", `${path} may be read or written by other users, and it holds this computer's secret key. Run chmod 600 "${path}".`);
  }
  let parsed: Partial<PeerBookFile>;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<PeerBookFile>;
  } catch (error) {
    throw new PeerError("peer_book_invalid", `${path} is not valid JSON. Fix it, or move it aside to start with no peers (and a new key).`, { cause: error });
  }
  if (parsed.version !== 1 || typeof parsed.identitySeed !== "string" || !/^[0-9a-f]{64}$/.test(parsed.identitySeed)) {
    throw new PeerError("peer_book_invalid", `${path} is not a botpsy peer book (version 1 with an identity seed). Move it aside to start with no peers.`);
  }
  return {
    version: 1,
    identitySeed: parsed.identitySeed,
    lenders: Array.isArray(parsed.lenders) ? parsed.lenders : [],
    borrowers: Array.isArray(parsed.borrowers) ? parsed.borrowers : [],
    invites: Array.isArray(parsed.invites) ? parsed.invites : [],
  };
}

function sha256Hex(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
