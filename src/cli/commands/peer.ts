import type { Command } from "commander";
import { botpsyHome, readConfig } from "../../config.js";
import { InvalidInputError } from "../../errors.js";
import { createChatModel } from "../../model/resolve.js";
import { decodeInvite, encodeInvite, inviteQrCode } from "../../peer/invite.js";
import { modelInfoOf } from "../../peer/model-info.js";
import { checkPeerName, PeerBook } from "../../peer/peer-book.js";
import { parseAllowedHost } from "../../peer/lent-internet.js";
import { PeerClient } from "../../peer/peer-client.js";
import { PeerServer, type ReceivedEntry } from "../../peer/peer-server.js";
import { peerNetwork } from "../../peer/run-model.js";
import { parseThreads } from "./run.js";
import { untilStopped } from "../until-stopped.js";

interface NetworkFlags {
  bootstrap?: string[];
  allowRemoteBootstrap?: boolean;
}

const BOOTSTRAP_FLAG = "--bootstrap <host:port...>";
const BOOTSTRAP_DESCRIPTION = "DHT bootstrap node(s); required (or peer.bootstrap in config.json): botpsy never uses a public default";
const REMOTE_FLAG = "--allow-remote-bootstrap";
const REMOTE_DESCRIPTION = "allow bootstrap nodes off loopback (a DHT node you run on your own network)";

function summary(entry: ReceivedEntry): string {
  switch (entry.event) {
    case "generate":
      return `${entry.at} model turn from ${entry.from}: ${entry.request.messages.length} messages, ${entry.request.tools?.length ?? 0} tools, ${entry.bytes} bytes`;
    case "paired":
      return `${entry.at} paired ${entry.from}`;
    case "refused":
      return `${entry.at} refused ${entry.from}: ${entry.reason}`;
    case "web-fetch":
      return entry.refused !== undefined
        ? `${entry.at} web fetch for ${entry.from} refused: ${entry.url} (${entry.refused.code})`
        : `${entry.at} web fetch for ${entry.from}: ${entry.url} → HTTP ${entry.status}, ${entry.bytes} bytes`;
  }
}

export function registerPeerCommand(program: Command): void {
  const peer = program.command("peer").description("Lend this computer's model to your own devices, or send heavy model turns to a computer of yours (encrypted P2P)");

  peer
    .command("serve")
    .description("Lend the loaded model to paired devices only (model turns in, replies out; no files, database or keys cross), and with --lend-internet this computer's internet for their web tools")
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice)")
    .option(BOOTSTRAP_FLAG, BOOTSTRAP_DESCRIPTION)
    .option(REMOTE_FLAG, REMOTE_DESCRIPTION)
    .option("--log-requests <file>", "append each model turn received, whole, and each web fetch (URL, bytes) to this file (JSON lines)")
    .option("--lend-internet", "also fetch web pages (HTTP(S) GET only, 2 MiB, 10 s) for paired devices' web tools, so their queries go out from here; never this computer's own or local-network addresses")
    .option("--lend-internet-allow-host <host:port...>", "with --lend-internet: a local host:port paired devices may fetch all the same (a service of yours you mean to share)")
    .action(async (options: NetworkFlags & { model?: string; threads?: string; logRequests?: string; lendInternet?: boolean; lendInternetAllowHost?: string[] }) => {
      const home = botpsyHome();
      const allowHosts = options.lendInternetAllowHost ?? [];
      if (allowHosts.length > 0 && options.lendInternet !== true) {
        throw new InvalidInputError("--lend-internet-allow-host only applies with --lend-internet; add --lend-internet, or drop the allowed hosts.");
      }
      for (const host of allowHosts) parseAllowedHost(host);
      const network = peerNetwork(options, readConfig(home));
      const threads = parseThreads(options.threads);
      const book = PeerBook.open(home);
      const model = await createChatModel({ model: options.model, progress: true, ...(threads !== undefined ? { threads } : {}) });
      let server: PeerServer;
      try {
        server = await PeerServer.start({
          book,
          model,
          modelInfo: modelInfoOf(model),
          network,
          ...(options.logRequests !== undefined ? { receivedLogPath: options.logRequests } : {}),
          ...(options.lendInternet === true ? { lendInternet: { allowHosts } } : {}),
          onReceived: (entry) => process.stdout.write(`${summary(entry)}\n`),
        });
      } catch (error) {
        await model.dispose();
        throw error;
      }
      process.stdout.write(`botpsy lends ${model.id} as ${server.publicKey} to ${book.borrowers().length} paired device(s); make an invite with botpsy peer invite\n`);
      if (options.lendInternet === true) {
        process.stdout.write(`It also lends its internet to them for web pages (GET, http/https, 2 MiB)${allowHosts.length > 0 ? `; local hosts allowed: ${allowHosts.map(parseAllowedHost).join(", ")}` : ""}\n`);
      }
      await untilStopped();
      await server.close();
      await model.dispose();
    });

  peer
    .command("invite")
    .description("Print a one-time invite (text and QR code) for a device to pair with this computer; botpsy peer serve must run to accept it")
    .option("--name <name>", "what to call the device here", "device")
    .option("--expires <minutes>", "minutes the invite works", "10")
    .option("--no-qr", "print the text only")
    .action(async (options: { name: string; expires: string; qr: boolean }) => {
      const minutes = Number(options.expires);
      if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60) throw new InvalidInputError(`--expires must be a number of minutes from 1 to 1440, not "${options.expires}".`);
      const book = PeerBook.open(botpsyHome());
      const { secret, expiresAt } = book.createInvite(checkPeerName(options.name), minutes * 60_000);
      const text = encodeInvite({ publicKey: book.keyPair.publicKey, secret, expiresAt });
      process.stdout.write(`Invite for "${options.name}" (one use, until ${expiresAt.toISOString()}):\n${text}\n`);
      if (options.qr) process.stdout.write(await inviteQrCode(text));
      process.stdout.write(`On the device: botpsy peer pair ${text} --name <name for this computer>\n`);
    });

  peer
    .command("pair")
    .description("Pair with a computer from its invite, and remember it under a name for --offload")
    .argument("<invite>", "the text botpsy peer invite printed")
    .option("--name <name>", "what to call that computer here", "home")
    .option(BOOTSTRAP_FLAG, BOOTSTRAP_DESCRIPTION)
    .option(REMOTE_FLAG, REMOTE_DESCRIPTION)
    .option("--timeout <seconds>", "give up connecting after this long", "20")
    .action(async (text: string, options: NetworkFlags & { name: string; timeout: string }) => {
      const home = botpsyHome();
      const name = checkPeerName(options.name);
      const invite = decodeInvite(text);
      const seconds = Number(options.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidInputError(`--timeout must be a positive number of seconds, not "${options.timeout}".`);
      const network = peerNetwork(options, readConfig(home));
      const book = PeerBook.open(home);
      const { client, value: paired } = await PeerClient.connectAnd({ book, publicKey: invite.publicKey.toString("hex"), network, connectTimeoutMs: seconds * 1000 }, (opened) => opened.pair(invite.secret));
      try {
        book.addLender(name, invite.publicKey.toString("hex"));
        process.stdout.write(`Paired with "${name}" (it lends ${paired.model.id}, context ${paired.model.contextSize}); it knows this device as "${paired.name}".\n`);
        process.stdout.write(`Model turns go there with botpsy run --offload ${name} (or auto).\n`);
      } finally {
        await client.close();
      }
    });

  peer
    .command("ping")
    .description("Check that a paired computer answers: how long its link took to open and answer, and the model it lends")
    .argument("<name>", "the lender's name (botpsy peer list)")
    .option(BOOTSTRAP_FLAG, BOOTSTRAP_DESCRIPTION)
    .option(REMOTE_FLAG, REMOTE_DESCRIPTION)
    .option("--timeout <seconds>", "give up connecting after this long", "10")
    .option("--json", "print as JSON")
    .action(async (name: string, options: NetworkFlags & { timeout: string; json?: boolean }) => {
      const home = botpsyHome();
      const seconds = Number(options.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidInputError(`--timeout must be a positive number of seconds, not "${options.timeout}".`);
      const book = PeerBook.open(home);
      const lender = book.lender(checkPeerName(name));
      if (lender === undefined) {
        const names = book.lenders().map((entry) => entry.name);
        throw new InvalidInputError(`No lender is paired as "${name}"${names.length > 0 ? ` (paired: ${names.join(", ")})` : ""}; pair one with botpsy peer pair <invite> --name ${name}.`, { code: "peer_unknown" });
      }
      const network = peerNetwork(options, readConfig(home));
      const started = performance.now();
      const { client, value: model, links } = await PeerClient.connectAnd({ book, publicKey: lender.publicKey, network, connectTimeoutMs: seconds * 1000 }, (opened) => opened.info());
      const ms = Math.round(performance.now() - started);
      await client.close();
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ name: lender.name, publicKey: lender.publicKey, ms, links, model }, null, 2)}\n`);
        return;
      }
      const how = links === 1 ? "on the first link" : `on link ${links} (${links - 1} opened here but brought nothing back)`;
      process.stdout.write(`"${lender.name}" answered in ${ms} ms ${how}: it lends ${model.id}, context ${model.contextSize}, ${(model.sizeBytes / 1e6).toFixed(0)} MB of weights.\n`);
    });

  peer
    .command("list")
    .description("The computers this device may offload to, and the devices this computer lends its model to")
    .option("--json", "print as JSON")
    .action((options: { json?: boolean }) => {
      const book = PeerBook.open(botpsyHome());
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ publicKey: book.publicKey, lenders: book.lenders(), borrowers: book.borrowers() }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`This computer: ${book.publicKey}\n`);
      process.stdout.write(`Offloads to (lenders):${book.lenders().length === 0 ? " none" : ""}\n`);
      for (const lender of book.lenders()) process.stdout.write(`  ${lender.name}  ${lender.publicKey}  paired ${lender.pairedAt}\n`);
      process.stdout.write(`Lends its model to (devices):${book.borrowers().length === 0 ? " none" : ""}\n`);
      for (const borrower of book.borrowers()) process.stdout.write(`  ${borrower.name}  ${borrower.publicKey}  paired ${borrower.pairedAt}\n`);
    });

  peer
    .command("rm")
    .description("Forget a peer; a running botpsy peer serve refuses it at once and closes its links")
    .argument("<name>", "the peer's name (botpsy peer list)")
    .action((name: string) => {
      const removed = PeerBook.open(botpsyHome()).remove(name);
      if (removed.lenders.length + removed.borrowers.length === 0) throw new InvalidInputError(`No peer is named "${name}"; botpsy peer list shows the names.`, { code: "peer_unknown" });
      process.stdout.write(`Removed "${name}"${removed.borrowers.length > 0 ? " (its links to this computer are closed)" : ""}.\n`);
    });
}
