import QRCode from "qrcode";
import { PeerInviteError } from "./errors.js";

/** What an invite carries: who to connect to, the one-time secret, and until when it works. */
export interface Invite {
  /** The lending computer's public key (32 bytes). */
  publicKey: Buffer;
  /** One-time secret (16 bytes); the lender keeps only its hash. */
  secret: Buffer;
  expiresAt: Date;
}

const PREFIX = "botpsy-invite1-";

/** Text form: a prefix and base64url of key, secret and expiry (seconds), short enough for a QR code. */
export function encodeInvite(invite: Invite): string {
  const expiry = Buffer.alloc(8);
  expiry.writeBigUInt64BE(BigInt(Math.floor(invite.expiresAt.getTime() / 1000)));
  return `${PREFIX}${Buffer.concat([invite.publicKey, invite.secret, expiry]).toString("base64url")}`;
}

export function decodeInvite(text: string, now = new Date()): Invite {
  const trimmed = text.trim();
  if (!trimmed.startsWith(PREFIX)) throw new PeerInviteError("peer_invite_invalid", `That is not a botpsy invite (it starts with ${PREFIX}); copy the whole line botpsy peer invite printed.`);
  const bytes = Buffer.from(trimmed.slice(PREFIX.length), "base64url");
  if (bytes.length !== 56) throw new PeerInviteError("peer_invite_invalid", "The invite is cut short or altered; copy the whole line botpsy peer invite printed.");
  const expiresAt = new Date(Number(bytes.readBigUInt64BE(48)) * 1000);
  if (expiresAt.getTime() <= now.getTime()) throw new PeerInviteError("peer_invite_expired", `This invite expired at ${expiresAt.toISOString()}. Make a new one with botpsy peer invite.`);
  return { publicKey: bytes.subarray(0, 32), secret: bytes.subarray(32, 48), expiresAt };
}

/** The invite as a QR code drawn with terminal characters. */
export async function inviteQrCode(text: string): Promise<string> {
  return QRCode.toString(text, { type: "terminal", small: true, errorCorrectionLevel: "M" });
}
