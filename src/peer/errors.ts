import { BotpsyError } from "../errors.js";

/**
 * Errors of the peer link. Each has a stable `code` and a message that says
 * what to do.
 */
export class PeerError extends BotpsyError {}

/** No bootstrap was given, or one that would leave this machine when only loopback is allowed. */
export class PeerBootstrapError extends PeerError {}

/** An invite that does not parse, has expired, or was already used. */
export class PeerInviteError extends PeerError {}

/** The peer could not be reached, refused us, or the link broke off. */
export class PeerUnavailableError extends PeerError {}

/** The other side sent something the protocol does not allow. */
export class PeerProtocolError extends PeerError {}

/** A web fetch a lender refused or could not make for a device (lent internet). */
export class PeerWebError extends PeerError {}
