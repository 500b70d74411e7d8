import type { StoreTransaction } from "../../store/store.js";
import { ToolError } from "../../tools/tool.js";
import { contactsCollection, resolveContact } from "../messages/contacts.js";
import { PERSONA } from "../persona.js";

/** A person as the work apps keep them: a name and an address. */
export interface Person {
  name: string;
  email: string;
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export const ME: Person = { name: PERSONA.name, email: PERSONA.email };

/**
 * A person named the way a model writes them: an address ("frank@…", "Frank
 * <frank@…>") or a contact ("Frank", "Frank Miller").
 */
export function resolvePerson(tx: StoreTransaction, text: string, field = "to"): Person {
  const trimmed = text.trim();
  const angle = /^(.*)<([^>]+)>$/.exec(trimmed);
  const address = (angle ? angle[2]! : trimmed).trim().toLowerCase();
  if (EMAIL.test(address)) {
    const stored = contactsCollection(tx).all();
    const contacts = stored.length > 0 ? stored : PERSONA.contacts;
    const known = contacts.find((contact) => contact.email?.toLowerCase() === address);
    const name = known?.name ?? (angle ? angle[1]!.trim().replace(/^"|"$/g, "") : "") ?? "";
    return { name: name === "" ? address : name, email: address };
  }
  if (address === "me" || address === "myself") return ME;
  const contact = resolveContact(tx, trimmed, field);
  if (!contact.email) {
    throw new ToolError("no_email_address", `${contact.name} has no email address in your contacts. Give the address itself in ${field}.`);
  }
  return { name: contact.name, email: contact.email.toLowerCase() };
}

/** A list of people from an array or a comma-separated string ("Frank, maria@…"). */
export function resolvePeople(tx: StoreTransaction, value: string | string[] | undefined, field = "to"): Person[] {
  if (value === undefined) return [];
  const texts = (Array.isArray(value) ? value : value.split(/[,;]/)).map((item) => item.trim()).filter((item) => item !== "");
  const people: Person[] = [];
  for (const text of texts) {
    const person = resolvePerson(tx, text, field);
    if (!people.some((known) => known.email === person.email)) people.push(person);
  }
  return people;
}

export function formatPerson(person: Person): string {
  return person.name === person.email ? person.email : `${person.name} <${person.email}>`;
}
