import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BotpsyError } from "../errors.js";

export class AccessTokenError extends BotpsyError {}

/** Where the server keeps the hash of its access token: BOTPSY_HOME/server-token (mode 0600). */
export function accessTokenPath(home: string): string {
  return join(home, "server-token");
}

/**
 * The bearer token that guards the server on any address other than
 * loopback. Only its SHA-256 is stored, so the token is shown once, when it
 * is created or rotated, and never again: a file leak does not leak it.
 */
export class AccessToken {
  private readonly hash: Buffer;

  private constructor(hash: Buffer) {
    this.hash = hash;
  }

  static fromToken(token: string): AccessToken {
    return new AccessToken(sha256(token));
  }

  /**
   * The stored token of `home`. Refuses a file that others may read or
   * write (the token would no longer be the owner's alone) and a file that
   * holds no hash.
   */
  static load(home: string): AccessToken | undefined {
    const path = accessTokenPath(home);
    if (!existsSync(path)) return undefined;
    if (process.platform !== "win32" && (statSync(path).mode & 0o077) !== 0) {
      throw new AccessTokenError(
        "token_file_exposed",
        `${path} may be read or written by other users. Run chmod 600 "${path}", or botpsy serve --rotate-token for a new token.`,
      );
    }
    const text = readFileSync(path, "utf8").trim();
    if (!/^[0-9a-f]{64}$/.test(text)) {
      throw new AccessTokenError("token_file_invalid", `${path} does not hold a token hash. Run botpsy serve --rotate-token to make a new token.`);
    }
    return new AccessToken(Buffer.from(text, "hex"));
  }

  /** Makes a new random token, stores its hash (0600), and returns the token itself: the only time it is seen. */
  static create(home: string): { token: string; accessToken: AccessToken } {
    const token = `bp-${randomBytes(32).toString("base64url")}`;
    const path = accessTokenPath(home);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${sha256(token).toString("hex")}\n`, { mode: 0o600 });
    // writeFileSync keeps the mode of a file that already exists.
    chmodSync(path, 0o600);
    return { token, accessToken: new AccessToken(sha256(token)) };
  }

  /** Whether an `Authorization` header carries this token (compared in constant time). */
  accepts(authorization: string | undefined): boolean {
    if (authorization === undefined) return false;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return false;
    return timingSafeEqual(sha256(match[1]!), this.hash);
  }
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
