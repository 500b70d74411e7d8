import { existsSync } from "node:fs";
import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { readSandboxFile, resolveSandboxPath, sandboxRoot, writeSandboxFile } from "../device/sandbox.js";
import { PERSONA } from "../persona.js";
import { itemsMatching, referenceFix, referenceHint } from "../shared.js";
import { formatDate, formatTime, zonedParts } from "../time.js";
import { formatPerson, ME, resolvePeople, type Person } from "./people.js";

export const EMAIL_APP = "email";
export const FOLDERS = ["inbox", "sent", "drafts", "archive", "trash"] as const;
export type Folder = (typeof FOLDERS)[number];
/** Messages the mailbox holds, Trash not counted (as a provider's quota would). */
export const DEFAULT_MAILBOX_CAPACITY = 50;
const LIST_LIMIT = 25;
const BODY_LIMIT = 4000;
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export interface Attachment {
  name: string;
  size: number;
  contentBase64: string;
}

export interface Email {
  id: string;
  folder: Folder;
  from: Person;
  to: Person[];
  cc: Person[];
  subject: string;
  body: string;
  /** ISO instant. */
  date: string;
  read: boolean;
  attachments: Attachment[];
  inReplyTo?: string;
}

export interface MailAccount {
  address: string;
  capacity: number;
}

/** Mail waiting on the server until check_email fetches it. */
export type IncomingEmail = Omit<Email, "folder" | "read">;

export function emailCollection(tx: StoreTransaction) {
  return tx.collection<Email>(EMAIL_APP, "messages");
}

export function incomingCollection(tx: StoreTransaction) {
  return tx.collection<IncomingEmail>(EMAIL_APP, "incoming");
}

export function readMailAccount(tx: StoreTransaction): MailAccount {
  return tx.collection<MailAccount>(EMAIL_APP, "account").get("account") ?? { address: PERSONA.email, capacity: DEFAULT_MAILBOX_CAPACITY };
}

export function writeMailAccount(tx: StoreTransaction, account: MailAccount): void {
  tx.collection<MailAccount>(EMAIL_APP, "account").put("account", account);
}

function stored(tx: StoreTransaction): number {
  return emailCollection(tx).find((email) => email.folder !== "trash").length;
}

/** Refuses when the mailbox cannot take `adding` more messages, saying how to make room. */
function requireRoom(tx: StoreTransaction, adding: number, action: string): void {
  const { capacity } = readMailAccount(tx);
  const count = stored(tx);
  if (count + adding > capacity) {
    throw new ToolError(
      "mailbox_full",
      `Cannot ${action}: the mailbox is full (${count}/${capacity} messages). Delete messages with delete_email (or move them to trash), then retry.`,
      { count, capacity },
    );
  }
}

function parseFolder(text: string, field = "folder"): Folder {
  const cleaned = text.trim().toLowerCase();
  const aliases: Record<string, Folder> = { "sent mail": "sent", "sent items": "sent", draft: "drafts", bin: "trash", deleted: "trash", archived: "archive", "all mail": "archive" };
  const folder = (FOLDERS as readonly string[]).includes(cleaned) ? (cleaned as Folder) : aliases[cleaned];
  if (!folder) throw new ToolError("invalid_folder", `${field}="${text}" is not a folder. Folders: ${FOLDERS.join(", ")}.`);
  return folder;
}

function findEmail(tx: StoreTransaction, id: string, parameter = "email_id"): Email {
  const found = emailCollection(tx).get(id.trim().toLowerCase());
  if (!found) {
    // A draft is what a draft_id names; any email for the others.
    const pool = emailCollection(tx)
      .all()
      .filter((email) => parameter !== "draft_id" || email.folder === "drafts");
    const matching = itemsMatching(pool, id, (email) => [email.subject, email.from.name, email.from.email, ...email.to.map((person) => person.name)].join(" "));
    // Of several, the one mail received is what "Omar's email" nearly always means (a reply, a forward), not a draft or a copy sent.
    const received = matching.filter((email) => email.folder === "inbox");
    const ids = (matching.length > 1 && received.length === 1 ? received : matching).map((email) => email.id);
    throw new ToolError(
      "email_not_found",
      `There is no email "${id}".${referenceHint(ids, parameter)}${ids.length === 0 ? " Find its id with list_emails or search_email." : ""}`,
      referenceFix(ids, parameter),
    );
  }
  return found;
}

function localTime(iso: string, timeZone: string): string {
  const parts = zonedParts(new Date(iso), timeZone);
  return `${formatDate(parts)} ${formatTime(parts)}`;
}

function snippet(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > 90 ? `${flat.slice(0, 90)}…` : flat;
}

function headline(email: Email, timeZone: string): Record<string, unknown> {
  return {
    id: email.id,
    folder: email.folder,
    from: formatPerson(email.from),
    ...(email.folder === "sent" || email.folder === "drafts" ? { to: email.to.map(formatPerson) } : {}),
    subject: email.subject,
    date: localTime(email.date, timeZone),
    read: email.read,
    snippet: snippet(email.body),
    ...(email.attachments.length ? { attachments: email.attachments.map((attachment) => attachment.name) } : {}),
  };
}

function attachFiles(tx: StoreTransaction, paths: string[] | undefined): Attachment[] {
  const attachments: Attachment[] = [];
  let total = 0;
  for (const path of paths ?? []) {
    const file = readSandboxFile(tx, path, "attachments");
    total += file.content.length;
    if (total > MAX_ATTACHMENT_BYTES) {
      throw new ToolError("attachments_too_large", `Attachments add up to more than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB. Send fewer or smaller files.`);
    }
    attachments.push({ name: file.path.relative.split("/").at(-1) ?? file.path.relative, size: file.content.length, contentBase64: file.content.toString("base64") });
  }
  return attachments;
}

function requireRecipients(people: Person[], field: string): void {
  if (people.length === 0) throw new ToolError("no_recipients", `${field} is empty. Name at least one contact or email address, such as "Frank".`);
}

interface Outgoing {
  to: Person[];
  cc: Person[];
  subject: string;
  body: string;
  attachments: Attachment[];
  inReplyTo?: string;
}

/** Put a message in Sent, after the checks a real client makes: network, then room. */
function deliver(context: { store: StoreTransaction; now(): Date; timeZone: string }, message: Outgoing, replacing?: Email): Record<string, unknown> {
  requireConnectivity(context.store, "send the email");
  if (!replacing) requireRoom(context.store, 1, "send the email (a copy is kept in Sent)");
  const collection = emailCollection(context.store);
  const email: Email = {
    id: replacing?.id ?? collection.nextId("email"),
    folder: "sent",
    from: ME,
    to: message.to,
    cc: message.cc,
    subject: message.subject,
    body: message.body,
    date: context.now().toISOString(),
    read: true,
    attachments: message.attachments,
    ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
  };
  collection.put(email.id, email);
  return {
    sent: email.id,
    to: email.to.map(formatPerson),
    ...(email.cc.length ? { cc: email.cc.map(formatPerson) } : {}),
    subject: email.subject,
    ...(email.attachments.length ? { attachments: email.attachments.map((attachment) => attachment.name) } : {}),
    date: localTime(email.date, context.timeZone),
  };
}

const peopleField = z.union([z.array(z.string()), z.string()]).describe('Contacts or addresses. Example: "Frank" or ["frank.miller@example.com"]');
const emailIdField = z.string().min(1).describe('The email id from list_emails. Example: "email-4"');
const attachmentsField = z.array(z.string()).describe('Files from your files to attach. Example: ["documents/budget-2026.csv"]');

const listEmails = defineTool({
  name: "list_emails",
  description: "List emails in a folder (inbox by default), newest first.",
  input: z.object({
    folder: z.string().optional().describe('"inbox", "sent", "drafts", "archive" or "trash".'),
    unread_only: z.boolean().optional().describe("Only unread emails."),
    limit: z.number().int().min(1).max(LIST_LIMIT).optional().describe("How many (default 10)."),
  }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ folder = "inbox", unread_only = false, limit = 10 }, context) => {
    const wanted = parseFolder(folder);
    const found = emailCollection(context.store)
      .find((email) => email.folder === wanted && (!unread_only || !email.read))
      .sort((a, b) => b.date.localeCompare(a.date));
    const { capacity } = readMailAccount(context.store);
    return {
      folder: wanted,
      emails: found.slice(0, limit).map((email) => headline(email, context.timeZone)),
      count: found.length,
      unread: found.filter((email) => !email.read).length,
      ...(found.length > limit ? { more: found.length - limit } : {}),
      mailbox: `${stored(context.store)}/${capacity} messages`,
    };
  },
});

const readEmail = defineTool({
  name: "read_email",
  description: "Read one email in full.",
  input: z.object({ email_id: emailIdField }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ email_id }, context) => {
    const email = findEmail(context.store, email_id);
    return {
      id: email.id,
      folder: email.folder,
      from: formatPerson(email.from),
      to: email.to.map(formatPerson),
      ...(email.cc.length ? { cc: email.cc.map(formatPerson) } : {}),
      subject: email.subject,
      date: localTime(email.date, context.timeZone),
      body: email.body.slice(0, BODY_LIMIT),
      ...(email.body.length > BODY_LIMIT ? { truncated: true } : {}),
      attachments: email.attachments.map((attachment) => ({ name: attachment.name, size: attachment.size })),
    };
  },
});

const searchEmail = defineTool({
  name: "search_email",
  description: "Search emails by sender, subject or text.",
  input: z.object({
    query: z.string().trim().min(1).describe('Example: "invoice" or "Frank"'),
    folder: z.string().optional().describe("Only this folder. Leave out to search all but trash."),
  }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ query, folder }, context) => {
    const only = folder === undefined ? undefined : parseFolder(folder);
    const wanted = query.toLowerCase();
    const found = emailCollection(context.store)
      .find(
        (email) =>
          (only ? email.folder === only : email.folder !== "trash") &&
          [email.subject, email.body, email.from.name, email.from.email, ...email.to.map((person) => `${person.name} ${person.email}`)].some((text) =>
            text.toLowerCase().includes(wanted),
          ),
      )
      .sort((a, b) => b.date.localeCompare(a.date));
    return { query, emails: found.slice(0, LIST_LIMIT).map((email) => headline(email, context.timeZone)), count: found.length };
  },
});

const sendEmail = defineTool({
  name: "send_email",
  description: "Send an email to contacts or addresses, optionally with files attached.",
  input: z.object({
    to: peopleField,
    subject: z.string().describe('Example: "Reminder: tomorrow\'s meeting"'),
    body: z.string().describe("The message text."),
    cc: peopleField.optional(),
    attachments: attachmentsField.optional(),
  }),
  risk: "send",
  run: ({ to, subject, body, cc, attachments }, context) => {
    const recipients = resolvePeople(context.store, to, "to");
    requireRecipients(recipients, "to");
    const copies = resolvePeople(context.store, cc, "cc");
    if (subject.trim() === "" && body.trim() === "") throw new ToolError("empty_email", "The email has no subject and no text. Write what to say in body.");
    return deliver(context, { to: recipients, cc: copies, subject: subject.trim() || "(no subject)", body, attachments: attachFiles(context.store, attachments) });
  },
});

function quoted(email: Email, timeZone: string): string {
  return `On ${localTime(email.date, timeZone)}, ${formatPerson(email.from)} wrote:\n${email.body
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n")}`;
}

const replyEmail = defineTool({
  name: "reply_email",
  description: "Reply to an email (to the sender, or to everyone with reply_all).",
  input: z.object({
    email_id: emailIdField,
    body: z.string().min(1).describe("Your reply."),
    reply_all: z.boolean().optional().describe("Also reply to everyone else on it (default false)."),
  }),
  risk: "send",
  run: ({ email_id, body, reply_all = false }, context) => {
    const original = findEmail(context.store, email_id);
    if (original.folder === "drafts") throw new ToolError("is_draft", `${original.id} is your own draft. Send it with send_draft.`);
    const fromMe = original.from.email === ME.email;
    const to = fromMe ? original.to : [original.from];
    const cc = reply_all ? [...(fromMe ? [] : original.to), ...original.cc].filter((person) => person.email !== ME.email && !to.some((known) => known.email === person.email)) : [];
    const subject = /^re:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`;
    return deliver(context, { to, cc, subject, body: `${body}\n\n${quoted(original, context.timeZone)}`, attachments: [], inReplyTo: original.id });
  },
});

const forwardEmail = defineTool({
  name: "forward_email",
  description: "Forward an email, with its attachments, to contacts or addresses.",
  input: z.object({
    email_id: emailIdField,
    to: peopleField,
    note: z.string().optional().describe("A few words of your own above the forwarded email."),
  }),
  risk: "send",
  run: ({ email_id, to, note }, context) => {
    const original = findEmail(context.store, email_id);
    const recipients = resolvePeople(context.store, to, "to");
    requireRecipients(recipients, "to");
    const subject = /^fwd?:/i.test(original.subject) ? original.subject : `Fwd: ${original.subject}`;
    const header = `---------- Forwarded message ----------\nFrom: ${formatPerson(original.from)}\nDate: ${localTime(original.date, context.timeZone)}\nSubject: ${original.subject}\n\n`;
    return deliver(context, { to: recipients, cc: [], subject, body: `${note ? `${note}\n\n` : ""}${header}${original.body}`, attachments: original.attachments });
  },
});

const saveDraft = defineTool({
  name: "save_draft",
  description: "Save an email as a draft to send later (or update a draft you already have).",
  input: z.object({
    to: peopleField.optional(),
    subject: z.string().optional(),
    body: z.string().describe("The draft text."),
    attachments: attachmentsField.optional(),
    draft_id: z.string().optional().describe('Update this draft instead of making a new one. Example: "email-30"'),
  }),
  risk: "write",
  run: ({ to, subject, body, attachments, draft_id }, context) => {
    const collection = emailCollection(context.store);
    const existing = draft_id === undefined ? undefined : findEmail(context.store, draft_id, "draft_id");
    if (existing && existing.folder !== "drafts") throw new ToolError("not_a_draft", `${existing.id} is not a draft (it is in ${existing.folder}).`);
    if (!existing) requireRoom(context.store, 1, "save the draft");
    const draft: Email = {
      id: existing?.id ?? collection.nextId("email"),
      folder: "drafts",
      from: ME,
      to: to === undefined ? (existing?.to ?? []) : resolvePeople(context.store, to, "to"),
      cc: existing?.cc ?? [],
      subject: subject ?? existing?.subject ?? "",
      body,
      date: context.now().toISOString(),
      read: true,
      attachments: attachments === undefined ? (existing?.attachments ?? []) : attachFiles(context.store, attachments),
    };
    collection.put(draft.id, draft);
    return { draft: draft.id, to: draft.to.map(formatPerson), subject: draft.subject, updated: existing !== undefined };
  },
});

const sendDraft = defineTool({
  name: "send_draft",
  description: "Send a saved draft.",
  input: z.object({ draft_id: z.string().min(1).describe('Example: "email-30"') }),
  risk: "send",
  run: ({ draft_id }, context) => {
    const draft = findEmail(context.store, draft_id, "draft_id");
    if (draft.folder !== "drafts") throw new ToolError("not_a_draft", `${draft.id} is not a draft (it is in ${draft.folder}).`);
    if (draft.to.length === 0) throw new ToolError("no_recipients", `Draft ${draft.id} has no recipients. Add them with save_draft(draft_id="${draft.id}", to=…).`);
    return deliver(context, { to: draft.to, cc: draft.cc, subject: draft.subject || "(no subject)", body: draft.body, attachments: draft.attachments }, draft);
  },
});

const deleteEmail = defineTool({
  name: "delete_email",
  description: "Delete an email: it moves to the trash, which frees room in the mailbox.",
  input: z.object({ email_id: emailIdField }),
  risk: "write",
  run: ({ email_id }, context) => {
    const email = findEmail(context.store, email_id);
    if (email.folder === "trash") throw new ToolError("already_in_trash", `${email.id} is already in the trash. Use empty_trash to delete it for good.`);
    emailCollection(context.store).put(email.id, { ...email, folder: "trash" });
    return { deleted: email.id, subject: email.subject, movedTo: "trash", mailbox: `${stored(context.store)}/${readMailAccount(context.store).capacity} messages` };
  },
});

const moveEmail = defineTool({
  name: "move_email",
  description: "Move an email to another folder: inbox, archive or trash.",
  input: z.object({ email_id: emailIdField, folder: z.string().describe('"inbox", "archive" or "trash".') }),
  risk: "write",
  run: ({ email_id, folder }, context) => {
    const email = findEmail(context.store, email_id);
    const target = parseFolder(folder);
    if (target === "sent" || target === "drafts") throw new ToolError("invalid_folder", `Emails cannot be moved into ${target}. Move them to inbox, archive or trash.`);
    if (email.folder === "drafts") throw new ToolError("is_draft", `${email.id} is a draft. Send it with send_draft or delete it with delete_email.`);
    if (email.folder === target) throw new ToolError("already_there", `${email.id} is already in ${target}.`);
    if (email.folder === "trash") requireRoom(context.store, 1, `move ${email.id} out of the trash`);
    emailCollection(context.store).put(email.id, { ...email, folder: target });
    return { moved: email.id, from: email.folder, to: target };
  },
});

const emptyTrash = defineTool({
  name: "empty_trash",
  description: "Delete every email in the trash for good.",
  input: z.object({}),
  risk: "destructive",
  run: (_args, context) => {
    const collection = emailCollection(context.store);
    const trash = collection.find((email) => email.folder === "trash");
    if (trash.length === 0) throw new ToolError("trash_empty", "The trash is already empty.");
    for (const email of trash) collection.delete(email.id);
    return { deleted: trash.length };
  },
});

const checkEmail = defineTool({
  name: "check_email",
  description: "Fetch new emails from the server into the inbox.",
  input: z.object({}),
  risk: "read",
  resultTrust: "untrusted",
  run: (_args, context) => {
    requireConnectivity(context.store, "check for new email");
    const waiting = incomingCollection(context.store).all().sort((a, b) => a.date.localeCompare(b.date));
    if (waiting.length === 0) return { newEmails: 0, emails: [] };
    const { capacity } = readMailAccount(context.store);
    const room = capacity - stored(context.store);
    if (room <= 0) requireRoom(context.store, waiting.length, `receive ${waiting.length} new email(s) waiting on the server`);
    const delivered: Email[] = [];
    for (const incoming of waiting.slice(0, room)) {
      const email: Email = { ...incoming, folder: "inbox", read: false };
      emailCollection(context.store).put(email.id, email);
      incomingCollection(context.store).delete(incoming.id);
      delivered.push(email);
    }
    const left = waiting.length - delivered.length;
    return {
      newEmails: delivered.length,
      emails: delivered.map((email) => headline(email, context.timeZone)),
      ...(left > 0
        ? { warning: `The mailbox is full (${capacity}/${capacity}): ${left} email(s) still wait on the server. Delete messages with delete_email, then check_email again.` }
        : {}),
    };
  },
});

const saveAttachment = defineTool({
  name: "save_attachment",
  description: "Save a file attached to an email into your files.",
  input: z.object({
    email_id: emailIdField,
    attachment: z.string().min(1).describe('The attachment\'s name. Example: "agenda.txt"'),
    folder: z.string().optional().describe('Folder in your files (default "Downloads").'),
  }),
  risk: "write",
  run: ({ email_id, attachment, folder = "Downloads" }, context) => {
    const email = findEmail(context.store, email_id);
    const found = email.attachments.find((candidate) => candidate.name.toLowerCase() === attachment.trim().toLowerCase());
    if (!found) {
      throw new ToolError(
        "attachment_not_found",
        `${email.id} has no attachment "${attachment}". Its attachments: ${email.attachments.map((candidate) => candidate.name).join(", ") || "none"}.`,
      );
    }
    const target = resolveSandboxPath(sandboxRoot(context.store), `${folder.replace(/\/+$/, "")}/${found.name}`, "folder");
    if (existsSync(target.absolute)) {
      throw new ToolError("file_exists", `"${target.relative}" already exists in your files. Save into another folder with folder="…".`);
    }
    writeSandboxFile(context, target, Buffer.from(found.contentBase64, "base64"));
    return { saved: target.relative, size: found.size };
  },
});

export const emailApp: App = {
  name: EMAIL_APP,
  group: "work",
  title: "Email",
  description: "Your mailbox: inbox, sent, drafts, archive and trash; send, reply, forward, attachments.",
  tools: [listEmails, readEmail, searchEmail, sendEmail, replyEmail, forwardEmail, saveDraft, sendDraft, deleteEmail, moveEmail, emptyTrash, checkEmail, saveAttachment],
  seed(tx, environment) {
    writeMailAccount(tx, { address: PERSONA.email, capacity: DEFAULT_MAILBOX_CAPACITY });
    const now = environment.now().getTime();
    const hoursAgo = (hours: number) => new Date(now - hours * 3_600_000).toISOString();
    const person = (id: string): Person => {
      const contact = PERSONA.contacts.find((candidate) => candidate.id === id)!;
      return { name: contact.name, email: contact.email };
    };
    const service = (name: string, email: string): Person => ({ name, email });
    const text = (name: string, content: string): Attachment => ({ name, size: Buffer.byteLength(content), contentBase64: Buffer.from(content).toString("base64") });
    const messages: (Omit<Email, "id" | "cc" | "attachments" | "to" | "read"> & { to?: Person[]; attachments?: Attachment[]; read?: boolean })[] = [
      { folder: "inbox", from: person("frank"), subject: "Agenda for tomorrow's meeting", body: "Hi Sam,\n\nAttached is the agenda for tomorrow's planning meeting. Can you bring the Q4 numbers?\n\nFrank", date: hoursAgo(2), read: false, attachments: [text("agenda.txt", "1. Q4 numbers (Sam)\n2. Roadmap (Frank)\n3. Hiring plan (Priya)\n")] },
      { folder: "inbox", from: person("priya"), subject: "Q4 report: hiring plan section", body: "Sam, please add a short hiring plan section to the Q4 report before Friday. Thanks, Priya", date: hoursAgo(5), read: false },
      { folder: "inbox", from: person("maria"), subject: "Lunch this week?", body: "Still on for lunch at the Time Out Market? I can do 12:30.", date: hoursAgo(20), read: true },
      { folder: "inbox", from: service("TAP Air Portugal", "no-reply@flytap.example.com"), subject: "Your booking TP 556 to Berlin", body: "Booking confirmed. Flight TP 556, Lisbon to Berlin, seat 14C. Check-in opens 36 hours before departure.", date: hoursAgo(30), read: true },
      { folder: "inbox", from: person("omar"), subject: "Pilot scope", body: "Hello Sam, my team can start the pilot in January. Could you send the proposal by the 10th? Best, Omar", date: hoursAgo(40), read: false },
      { folder: "inbox", from: service("Banco Lisboa", "alerts@bancolisboa.example.com"), subject: "Your November statement is ready", body: "Your statement for November is available in the app.", date: hoursAgo(50), read: true, attachments: [text("statement-november.pdf", "%PDF-1.4\n% demo statement\n")] },
      { folder: "inbox", from: person("tom"), subject: "Re: offsite rooms", body: "I booked two rooms in Sintra for the offsite. Let me know if anyone needs a lift.", date: hoursAgo(60), read: true },
      { folder: "inbox", from: person("ana"), subject: "Mom's birthday present", body: "Shall we get Mom the ceramics class together? 40 euros each.", date: hoursAgo(70), read: false },
      { folder: "inbox", from: person("chen"), subject: "Time to book your check-up", body: "Dear Sam, it has been six months since your last visit. Reply to book a check-up.", date: hoursAgo(90), read: true },
      { folder: "inbox", from: person("lena"), subject: "Pilot metrics", body: "Here are the metrics I'd track in the pilot: activation, weekly use, support tickets.", date: hoursAgo(100), read: true },
      { folder: "inbox", from: service("Lisbon Runners", "news@lisbonrunners.example.com"), subject: "December race calendar", body: "The São Silvestre run is on 31 December. Registration closes on the 20th.", date: hoursAgo(120), read: true },
      { folder: "inbox", from: person("jules"), subject: "Photos from the hike", body: "Finally uploaded the photos from Arrábida. Some great ones of you on the ridge!", date: hoursAgo(140), read: true },
      { folder: "inbox", from: service("EDP", "billing@edp.example.com"), subject: "Electricity bill paid", body: "We received your payment of 64.20 EUR. Thank you.", date: hoursAgo(160), read: true },
      { folder: "inbox", from: person("mom"), subject: "Sunday lunch", body: "Are you coming on Sunday? I'm making bacalhau.", date: hoursAgo(180), read: true },
      { folder: "sent", from: ME, to: [person("frank")], subject: "Re: roadmap slides", body: "Looks good, I'll review them tomorrow.", date: hoursAgo(22) },
      { folder: "sent", from: ME, to: [person("maria")], subject: "Lunch this week?", body: "Lunch on Thursday?", date: hoursAgo(26) },
      { folder: "sent", from: ME, to: [person("priya")], subject: "Q4 report timeline", body: "I'll have the draft ready by Friday.", date: hoursAgo(75) },
      { folder: "drafts", from: ME, to: [person("omar")], subject: "Pilot proposal", body: "Hi Omar,\n\nHere is the proposal for the pilot…", date: hoursAgo(8) },
      { folder: "archive", from: person("priya"), subject: "Welcome to the team", body: "Welcome aboard, Sam!", date: hoursAgo(24 * 200) },
      { folder: "archive", from: service("Landlord", "rentals@lisbonflats.example.com"), subject: "Lease renewal", body: "Your lease at Rua das Flores 12 has been renewed for another year.", date: hoursAgo(24 * 60) },
      { folder: "trash", from: service("Deals Daily", "deals@dealsdaily.example.com"), subject: "50% off everything!", body: "Only today.", date: hoursAgo(24 * 3) },
    ];
    const collection = emailCollection(tx);
    for (const message of messages) {
      const id = collection.nextId("email");
      collection.put(id, { id, cc: [], attachments: [], to: [ME], read: true, ...message });
    }
    const incoming: Omit<IncomingEmail, "id">[] = [
      { from: person("frank"), to: [ME], cc: [], subject: "Room change", body: "Tomorrow's meeting moves to room Douro.", date: hoursAgo(0.5), attachments: [] },
      { from: service("Lisbon Runners", "news@lisbonrunners.example.com"), to: [ME], cc: [], subject: "Registration reminder", body: "Registration for the São Silvestre run closes soon.", date: hoursAgo(0.2), attachments: [] },
    ];
    for (const message of incoming) {
      const id = collection.nextId("email");
      incomingCollection(tx).put(id, { id, ...message });
    }
  },
  view(tx, environment) {
    const inbox = emailCollection(tx)
      .find((email) => email.folder === "inbox")
      .sort((a, b) => b.date.localeCompare(a.date));
    const { capacity } = readMailAccount(tx);
    const lines = [`Inbox (${inbox.filter((email) => !email.read).length} unread; mailbox ${stored(tx)}/${capacity})`];
    for (const email of inbox) {
      lines.push(`${email.read ? " " : "*"} ${localTime(email.date, environment.timeZone)}  ${email.from.name.padEnd(20).slice(0, 20)}  ${email.subject}${email.attachments.length ? "  [attachment]" : ""}`);
    }
    const counts = Object.fromEntries(FOLDERS.map((folder) => [folder, emailCollection(tx).find((email) => email.folder === folder).length]));
    lines.push("", Object.entries(counts).map(([folder, count]) => `${folder}: ${count}`).join("  "));
    return { text: lines.join("\n"), data: { counts, capacity, inbox: inbox.map((email) => headline(email, environment.timeZone)) } };
  },
};
