import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { PERSONA } from "../persona.js";

export const CONTACTS_APP = "contacts";
export const CONTACTS_COLLECTION = "contacts";

export interface Contact {
  id: string;
  name: string;
  email?: string;
  phone?: string;
  relation?: string;
  notes?: string;
}

const LIST_LIMIT = 20;

export function contactsCollection(tx: StoreTransaction) {
  return tx.collection<Contact>(CONTACTS_APP, CONTACTS_COLLECTION);
}

function normalisePhone(phone: string): string {
  return phone.replace(/[^\d+]/g, "");
}

/** Contacts whose name, first name, email or phone match `query` (exact matches first, then partial). */
export function matchContacts(contacts: Contact[], query: string): Contact[] {
  const wanted = query.trim().toLowerCase();
  if (wanted === "") return [];
  const wantedPhone = normalisePhone(wanted);
  const exact = contacts.filter(
    (contact) =>
      contact.id === wanted ||
      contact.name.toLowerCase() === wanted ||
      contact.name.toLowerCase().split(" ")[0] === wanted ||
      contact.email?.toLowerCase() === wanted ||
      (wantedPhone.length >= 6 && contact.phone !== undefined && normalisePhone(contact.phone) === wantedPhone),
  );
  if (exact.length > 0) return exact;
  return contacts.filter(
    (contact) =>
      contact.name.toLowerCase().includes(wanted) ||
      (contact.email?.toLowerCase().includes(wanted) ?? false) ||
      (contact.relation?.toLowerCase() === wanted) ||
      (wantedPhone.length >= 4 && contact.phone !== undefined && normalisePhone(contact.phone).includes(wantedPhone)),
  );
}

/**
 * The one contact `query` names, or a ToolError that tells the model how to
 * disambiguate or find the person. Falls back to the demo persona's contacts
 * when the contacts app is not loaded (its collection is empty).
 */
export function resolveContact(tx: StoreTransaction, query: string, field = "contact"): Contact {
  const stored = contactsCollection(tx).all();
  const contacts: Contact[] = stored.length > 0 ? stored : PERSONA.contacts.map((contact) => ({ ...contact }));
  const matches = matchContacts(contacts, query);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new ToolError(
      "ambiguous_contact",
      `${field}="${query}" matches ${matches.length} contacts: ${matches.map((contact) => contact.name).join(", ")}. Retry with the full name.`,
      { matches: matches.map((contact) => contact.name) },
    );
  }
  throw new ToolError(
    "unknown_contact",
    `No contact matches ${field}="${query}". Look the person up with find_contact(query="..."), or add them with add_contact.`,
  );
}

function summary(contact: Contact): Contact {
  return { ...contact };
}

const optionalText = (description: string) => z.string().trim().min(1).optional().describe(description);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[\d\s().-]{6,20}$/;

function validateEmail(email: string | undefined): string | undefined {
  if (email === undefined) return undefined;
  if (!EMAIL.test(email)) throw new ToolError("invalid_email", `email="${email}" is not an email address. Use a form such as "name@example.com".`);
  return email.toLowerCase();
}

function validatePhone(phone: string | undefined): string | undefined {
  if (phone === undefined) return undefined;
  if (!PHONE.test(phone) || normalisePhone(phone).replace("+", "").length < 6) {
    throw new ToolError("invalid_phone", `phone="${phone}" is not a phone number. Use digits with an optional leading +, such as "+351 912 000 111".`);
  }
  return phone;
}

const listContacts = defineTool({
  name: "list_contacts",
  description: "List the user's contacts (name, phone, email). Optionally filter by a word.",
  input: z.object({
    filter: optionalText('A word to filter by name, email or relation, e.g. "colleague".'),
  }),
  risk: "read",
  run(args, context) {
    const all = contactsCollection(context.store).all();
    const chosen = args.filter === undefined ? all : matchContacts(all, args.filter);
    const sorted = [...chosen].sort((a, b) => a.name.localeCompare(b.name));
    return {
      count: sorted.length,
      contacts: sorted.slice(0, LIST_LIMIT).map(summary),
      more: Math.max(0, sorted.length - LIST_LIMIT),
    };
  },
});

const findContact = defineTool({
  name: "find_contact",
  description: "Find a contact by name, first name, email or phone number. Use it to get someone's phone or email.",
  input: z.object({
    query: z.string().trim().min(1).describe('Name, email or phone, e.g. "Frank".'),
  }),
  risk: "read",
  run(args, context) {
    const matches = matchContacts(contactsCollection(context.store).all(), args.query);
    if (matches.length === 0) {
      throw new ToolError("unknown_contact", `No contact matches "${args.query}". Check the spelling, or list everyone with list_contacts.`);
    }
    return { count: matches.length, contacts: matches.slice(0, LIST_LIMIT).map(summary) };
  },
});

const addContact = defineTool({
  name: "add_contact",
  description: "Add a new person to the contacts. Give a name and a phone or an email.",
  input: z.object({
    name: z.string().trim().min(1).max(100).describe('Full name, e.g. "Rita Costa".'),
    phone: optionalText('Phone number, e.g. "+351 912 345 678".'),
    email: optionalText('Email address, e.g. "rita@example.com".'),
    relation: optionalText('How the user knows them, e.g. "friend".'),
    notes: optionalText("Anything to remember about them."),
  }),
  risk: "write",
  run(args, context) {
    const email = validateEmail(args.email);
    const phone = validatePhone(args.phone);
    if (email === undefined && phone === undefined) {
      throw new ToolError("missing_field", "A contact needs a phone or an email. Retry with phone=\"...\" or email=\"...\".");
    }
    const contacts = contactsCollection(context.store);
    const duplicate = contacts.all().find((contact) => contact.name.toLowerCase() === args.name.toLowerCase());
    if (duplicate) {
      throw new ToolError(
        "duplicate_contact",
        `A contact named "${duplicate.name}" already exists (id ${duplicate.id}). Change it with update_contact instead.`,
      );
    }
    const id = contacts.nextId("contact");
    const contact: Contact = { id, name: args.name };
    if (phone !== undefined) contact.phone = phone;
    if (email !== undefined) contact.email = email;
    if (args.relation !== undefined) contact.relation = args.relation;
    if (args.notes !== undefined) contact.notes = args.notes;
    contacts.put(id, contact);
    return { added: true, contact };
  },
});

const updateContact = defineTool({
  name: "update_contact",
  description: "Change a contact's phone, email, name, relation or notes.",
  input: z.object({
    contact: z.string().trim().min(1).describe('Who to change: name or id, e.g. "Maria".'),
    name: optionalText("New full name."),
    phone: optionalText('New phone number, e.g. "+351 912 345 678".'),
    email: optionalText('New email address, e.g. "maria@example.com".'),
    relation: optionalText('New relation, e.g. "neighbour".'),
    notes: optionalText("New notes."),
  }),
  risk: "write",
  run(args, context) {
    const contacts = contactsCollection(context.store);
    const matches = matchContacts(contacts.all(), args.contact);
    if (matches.length === 0) {
      throw new ToolError("unknown_contact", `No contact matches "${args.contact}". Check the name with list_contacts, or add them with add_contact.`);
    }
    if (matches.length > 1) {
      throw new ToolError(
        "ambiguous_contact",
        `"${args.contact}" matches ${matches.map((contact) => contact.name).join(", ")}. Retry with the full name.`,
      );
    }
    const email = validateEmail(args.email);
    const phone = validatePhone(args.phone);
    if ([args.name, email, phone, args.relation, args.notes].every((value) => value === undefined)) {
      throw new ToolError("nothing_to_change", "Say what to change: name, phone, email, relation or notes.");
    }
    const target = matches[0]!;
    if (args.name !== undefined) {
      const clash = contacts.all().find((contact) => contact.id !== target.id && contact.name.toLowerCase() === args.name!.toLowerCase());
      if (clash) throw new ToolError("duplicate_contact", `Another contact is already named "${clash.name}". Pick a different name.`);
    }
    const updated = contacts.update(target.id, (contact) => ({
      ...contact,
      ...(args.name !== undefined ? { name: args.name } : {}),
      ...(phone !== undefined ? { phone } : {}),
      ...(email !== undefined ? { email } : {}),
      ...(args.relation !== undefined ? { relation: args.relation } : {}),
      ...(args.notes !== undefined ? { notes: args.notes } : {}),
    }));
    return { updated: true, contact: updated };
  },
});

export const contactsApp: App = {
  name: CONTACTS_APP,
  group: "messages",
  title: "Contacts",
  description: "The people the user knows: names, phone numbers, email addresses.",
  tools: [listContacts, findContact, addContact, updateContact],
  seed(tx) {
    const contacts = contactsCollection(tx);
    for (const person of PERSONA.contacts) contacts.put(person.id, { ...person });
  },
  view(tx) {
    const contacts = [...contactsCollection(tx).all()].sort((a, b) => a.name.localeCompare(b.name));
    const lines = contacts.map(
      (contact) =>
        `${contact.name}${contact.relation ? ` (${contact.relation})` : ""}  ${contact.phone ?? ""}  ${contact.email ?? ""}`.trimEnd(),
    );
    return {
      text: contacts.length === 0 ? "No contacts." : `Contacts (${contacts.length})\n${lines.join("\n")}`,
      data: { contacts },
    };
  },
};
