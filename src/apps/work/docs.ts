import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { PERSONA } from "../persona.js";
import { formatDate, formatTime, zonedParts } from "../time.js";
import { formatPerson, ME, resolvePerson, type Person } from "./people.js";

export const DOCS_APP = "docs";
const ROLES = ["viewer", "commenter", "editor"] as const;
type Role = (typeof ROLES)[number];
const LIST_LIMIT = 30;
const CONTENT_LIMIT = 6000;
const MAX_CONTENT = 200_000;

export interface Share {
  person: Person;
  role: Role;
}

export interface Comment {
  id: string;
  author: Person;
  text: string;
  at: string;
  resolved: boolean;
}

export interface SharedDocument {
  id: string;
  title: string;
  kind: "document" | "note";
  content: string;
  owner: Person;
  /** The user's own role when someone else owns the document. */
  myRole?: Role;
  sharedWith: Share[];
  comments: Comment[];
  createdAt: string;
  updatedAt: string;
}

function documents(tx: StoreTransaction) {
  return tx.collection<SharedDocument>(DOCS_APP, "documents");
}

function isMine(document: SharedDocument): boolean {
  return document.owner.email === ME.email;
}

function myRole(document: SharedDocument): Role | "owner" {
  return isMine(document) ? "owner" : (document.myRole ?? "viewer");
}

function localTime(iso: string, timeZone: string): string {
  const parts = zonedParts(new Date(iso), timeZone);
  return `${formatDate(parts)} ${formatTime(parts)}`;
}

function summary(document: SharedDocument, timeZone: string): Record<string, unknown> {
  return {
    id: document.id,
    title: document.title,
    kind: document.kind,
    owner: isMine(document) ? "me" : document.owner.name,
    myRole: myRole(document),
    ...(document.sharedWith.length ? { sharedWith: document.sharedWith.map((share) => `${share.person.name} (${share.role})`) } : {}),
    openComments: document.comments.filter((comment) => !comment.resolved).length,
    updated: localTime(document.updatedAt, timeZone),
  };
}

function findDocument(tx: StoreTransaction, text: string): SharedDocument {
  const all = documents(tx).all();
  const wanted = text.trim().toLowerCase();
  const byId = all.find((document) => document.id === wanted);
  if (byId) return byId;
  let matches = all.filter((document) => document.title.toLowerCase() === wanted);
  if (matches.length === 0) matches = all.filter((document) => document.title.toLowerCase().includes(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new ToolError("document_not_found", `No document matches "${text}". Find it with list_documents and use its id.`);
  throw new ToolError("document_ambiguous", `Several documents match "${text}": ${matches.map((document) => `${document.id} (${document.title})`).join(", ")}. Use the id.`);
}

function parseRole(text: string | undefined): Role {
  if (text === undefined) return "viewer";
  const cleaned = text.trim().toLowerCase();
  const aliases: Record<string, Role> = { view: "viewer", read: "viewer", reader: "viewer", comment: "commenter", edit: "editor", write: "editor", writer: "editor" };
  const role = (ROLES as readonly string[]).includes(cleaned) ? (cleaned as Role) : aliases[cleaned];
  if (!role) throw new ToolError("invalid_role", `role="${text}" is not one of viewer, commenter, editor.`);
  return role;
}

const documentField = z.string().min(1).describe('The document id or title. Example: "doc-2" or "Q4 report"');

const createDocument = defineTool({
  name: "create_document",
  description: "Create a shared document or a note.",
  input: z.object({
    title: z.string().trim().min(1).describe('Example: "Trip plan"'),
    content: z.string().max(MAX_CONTENT).optional().describe("The text to start with."),
    kind: z.enum(["document", "note"]).optional().describe('"document" (default) or "note".'),
  }),
  risk: "write",
  run: ({ title, content = "", kind = "document" }, context) => {
    const collection = documents(context.store);
    if (collection.find((document) => isMine(document) && document.title.toLowerCase() === title.toLowerCase()).length > 0) {
      throw new ToolError("document_exists", `You already have a document called "${title}". Edit it with edit_document, or pick another title.`);
    }
    const now = context.now().toISOString();
    const document: SharedDocument = { id: collection.nextId("doc"), title, kind, content, owner: ME, sharedWith: [], comments: [], createdAt: now, updatedAt: now };
    collection.put(document.id, document);
    return summary(document, context.timeZone);
  },
});

const listDocuments = defineTool({
  name: "list_documents",
  description: "List your documents and notes, and those shared with you; optionally only those matching words.",
  input: z.object({ query: z.string().optional().describe('Words in the title or text. Example: "report"') }),
  risk: "read",
  run: ({ query }, context) => {
    const wanted = query?.trim().toLowerCase() ?? "";
    const found = documents(context.store)
      .find((document) => wanted === "" || document.title.toLowerCase().includes(wanted) || document.content.toLowerCase().includes(wanted))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return {
      documents: found.slice(0, LIST_LIMIT).map((document) => summary(document, context.timeZone)),
      count: found.length,
      ...(found.length > LIST_LIMIT ? { more: found.length - LIST_LIMIT } : {}),
    };
  },
});

const readDocument = defineTool({
  name: "read_document",
  description: "Read a document or note, with its comments.",
  input: z.object({ document: documentField }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ document }, context) => {
    const found = findDocument(context.store, document);
    return {
      ...summary(found, context.timeZone),
      content: found.content.slice(0, CONTENT_LIMIT),
      ...(found.content.length > CONTENT_LIMIT ? { truncated: true } : {}),
      comments: found.comments.map((comment) => ({ id: comment.id, author: comment.author.name, text: comment.text, resolved: comment.resolved })),
    };
  },
});

const editDocument = defineTool({
  name: "edit_document",
  description: "Change the text of a document: replace it all or add to the end.",
  input: z.object({
    document: documentField,
    content: z.string().max(MAX_CONTENT).describe("The new text, or the text to add."),
    mode: z.enum(["append", "replace"]).optional().describe('"append" (default) or "replace".'),
  }),
  risk: "write",
  run: ({ document, content, mode = "append" }, context) => {
    const found = findDocument(context.store, document);
    const role = myRole(found);
    if (role !== "owner" && role !== "editor") {
      throw new ToolError(
        "read_only",
        `You can only ${role === "commenter" ? "comment on" : "view"} "${found.title}" (owned by ${found.owner.name}). Ask them for edit access, or add a comment with add_comment.`,
      );
    }
    const next = mode === "replace" ? content : found.content === "" ? content : `${found.content.replace(/\n*$/, "")}\n${content}`;
    if (next.length > MAX_CONTENT) throw new ToolError("document_too_long", `The document would be ${next.length} characters; the limit is ${MAX_CONTENT}.`);
    const updated = documents(context.store).update(found.id, (current) => ({ ...current, content: next, updatedAt: context.now().toISOString() }));
    return { ...summary(updated, context.timeZone), mode, length: updated.content.length };
  },
});

const addComment = defineTool({
  name: "add_comment",
  description: "Add a comment to a document (everyone it is shared with sees it).",
  input: z.object({ document: documentField, text: z.string().trim().min(1).describe('Example: "Can we add the Q1 numbers?"') }),
  risk: "write",
  run: ({ document, text }, context) => {
    const found = findDocument(context.store, document);
    if (myRole(found) === "viewer") {
      throw new ToolError("read_only", `You can only view "${found.title}"; commenting needs commenter or editor access from ${found.owner.name}.`);
    }
    let id = "";
    const updated = documents(context.store).update(found.id, (current) => {
      id = `comment-${current.comments.length + 1}`;
      current.comments.push({ id, author: ME, text, at: context.now().toISOString(), resolved: false });
      return current;
    });
    return { document: updated.id, comment: id, openComments: updated.comments.filter((comment) => !comment.resolved).length };
  },
});

const resolveComment = defineTool({
  name: "resolve_comment",
  description: "Mark a comment on a document as resolved.",
  input: z.object({ document: documentField, comment_id: z.string().min(1).describe('Example: "comment-1"') }),
  risk: "write",
  run: ({ document, comment_id }, context) => {
    const found = findDocument(context.store, document);
    if (myRole(found) === "viewer") throw new ToolError("read_only", `You can only view "${found.title}".`);
    const comment = found.comments.find((candidate) => candidate.id === comment_id.trim().toLowerCase());
    if (!comment) {
      throw new ToolError("comment_not_found", `"${found.title}" has no comment ${comment_id}. Its comments: ${found.comments.map((candidate) => candidate.id).join(", ") || "none"}.`);
    }
    if (comment.resolved) throw new ToolError("already_resolved", `${comment.id} is already resolved.`);
    documents(context.store).update(found.id, (current) => ({
      ...current,
      comments: current.comments.map((candidate) => (candidate.id === comment.id ? { ...candidate, resolved: true } : candidate)),
    }));
    return { document: found.id, resolved: comment.id };
  },
});

const shareDocument = defineTool({
  name: "share_document",
  description: "Share one of your documents with a contact as viewer, commenter or editor.",
  input: z.object({
    document: documentField,
    with: z.string().min(1).describe('A contact or address. Example: "Frank"'),
    role: z.string().optional().describe('"viewer" (default), "commenter" or "editor".'),
  }),
  risk: "send",
  run: (args, context) => {
    const found = findDocument(context.store, args.document);
    if (!isMine(found)) {
      throw new ToolError("not_owner", `"${found.title}" belongs to ${found.owner.name}; only the owner can share it. Ask them to share it.`);
    }
    const person = resolvePerson(context.store, args.with, "with");
    if (person.email === ME.email) throw new ToolError("invalid_share", "You own this document already; share it with someone else.");
    const role = parseRole(args.role);
    requireConnectivity(context.store, "share the document");
    const existing = found.sharedWith.find((share) => share.person.email === person.email);
    if (existing?.role === role) throw new ToolError("already_shared", `"${found.title}" is already shared with ${person.name} as ${role}.`);
    const updated = documents(context.store).update(found.id, (current) => ({
      ...current,
      sharedWith: [...current.sharedWith.filter((share) => share.person.email !== person.email), { person, role }],
      updatedAt: context.now().toISOString(),
    }));
    return { shared: updated.id, title: updated.title, with: formatPerson(person), role, ...(existing ? { previousRole: existing.role } : {}) };
  },
});

const unshareDocument = defineTool({
  name: "unshare_document",
  description: "Stop sharing one of your documents with someone.",
  input: z.object({ document: documentField, with: z.string().min(1).describe('Example: "Frank"') }),
  risk: "write",
  run: (args, context) => {
    const found = findDocument(context.store, args.document);
    if (!isMine(found)) throw new ToolError("not_owner", `"${found.title}" belongs to ${found.owner.name}; only the owner can change its sharing.`);
    const person = resolvePerson(context.store, args.with, "with");
    if (!found.sharedWith.some((share) => share.person.email === person.email)) {
      throw new ToolError("not_shared", `"${found.title}" is not shared with ${person.name}. It is shared with: ${found.sharedWith.map((share) => share.person.name).join(", ") || "nobody"}.`);
    }
    documents(context.store).update(found.id, (current) => ({ ...current, sharedWith: current.sharedWith.filter((share) => share.person.email !== person.email) }));
    return { unshared: found.id, with: person.name };
  },
});

const deleteDocument = defineTool({
  name: "delete_document",
  description: "Delete one of your documents or notes.",
  input: z.object({ document: documentField }),
  risk: "destructive",
  run: ({ document }, context) => {
    const found = findDocument(context.store, document);
    if (!isMine(found)) throw new ToolError("not_owner", `"${found.title}" belongs to ${found.owner.name}; you cannot delete it.`);
    documents(context.store).delete(found.id);
    return { deleted: found.id, title: found.title, ...(found.sharedWith.length ? { wasSharedWith: found.sharedWith.map((share) => share.person.name) } : {}) };
  },
});

export const docsApp: App = {
  name: DOCS_APP,
  group: "work",
  title: "Docs",
  description: "Shared documents and notes with comments and sharing.",
  tools: [createDocument, listDocuments, readDocument, editDocument, addComment, resolveComment, shareDocument, unshareDocument, deleteDocument],
  seed(tx, environment) {
    const now = environment.now().getTime();
    const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString();
    const person = (id: string): Person => {
      const contact = PERSONA.contacts.find((candidate) => candidate.id === id)!;
      return { name: contact.name, email: contact.email };
    };
    const seeded: Omit<SharedDocument, "id">[] = [
      {
        title: "Q4 report",
        kind: "document",
        content: "# Q4 report\n\nRevenue grew 12% over Q3. Churn fell to 2.1%.\n\n## Hiring plan\n(to write)\n",
        owner: ME,
        sharedWith: [{ person: person("priya"), role: "commenter" }, { person: person("frank"), role: "editor" }],
        comments: [{ id: "comment-1", author: person("priya"), text: "Please add the hiring plan before Friday.", at: daysAgo(1), resolved: false }],
        createdAt: daysAgo(10),
        updatedAt: daysAgo(1),
      },
      {
        title: "Project Atlas roadmap",
        kind: "document",
        content: "Roadmap\n- January: pilot with Omar's team\n- March: general availability\n",
        owner: person("frank"),
        myRole: "editor",
        sharedWith: [],
        comments: [],
        createdAt: daysAgo(20),
        updatedAt: daysAgo(3),
      },
      {
        title: "Offsite agenda",
        kind: "document",
        content: "Day 1: strategy. Day 2: hiking in Sintra.",
        owner: person("tom"),
        myRole: "viewer",
        sharedWith: [],
        comments: [],
        createdAt: daysAgo(7),
        updatedAt: daysAgo(6),
      },
      { title: "Gift ideas for Mom", kind: "note", content: "- ceramics class (with Ana)\n- scarf\n- cookbook", owner: ME, sharedWith: [{ person: person("ana"), role: "editor" }], comments: [], createdAt: daysAgo(4), updatedAt: daysAgo(2) },
      { title: "Books to read", kind: "note", content: "- The Overstory\n- Project Hail Mary", owner: ME, sharedWith: [], comments: [], createdAt: daysAgo(30), updatedAt: daysAgo(30) },
    ];
    const collection = documents(tx);
    for (const document of seeded) {
      const id = collection.nextId("doc");
      collection.put(id, { id, ...document });
    }
  },
  view(tx, environment) {
    const all = documents(tx)
      .all()
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const data = all.map((document) => summary(document, environment.timeZone));
    const text =
      all.length === 0
        ? "No documents."
        : data
            .map((document) => `${String(document.id).padEnd(7)} ${String(document.title).padEnd(28)} ${String(document.kind).padEnd(9)} owner: ${String(document.owner)}  role: ${String(document.myRole)}${Number(document.openComments) ? `  ${String(document.openComments)} open comment(s)` : ""}`)
            .join("\n");
    return { text, data };
  },
};
