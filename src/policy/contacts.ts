import type { Store } from "../store/store.js";
import type { ContactDirectory } from "./rules.js";

function normalisePhone(value: string): string {
  return value.replace(/[^\d+]/g, "");
}

/**
 * The contacts kept in the profile's store (any app's `contacts` collection),
 * read fresh on every question so a contact added a moment ago counts. A value
 * is known when it is a contact's full or first name, id, address or number.
 */
export class StoreContactDirectory implements ContactDirectory {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  isKnown(value: string): boolean {
    const wanted = value.trim().toLowerCase();
    if (wanted === "") return false;
    const phone = normalisePhone(wanted);
    const rows = this.store.db.prepare("SELECT data FROM records WHERE collection = 'contacts'").all() as { data: string }[];
    for (const row of rows) {
      const contact = JSON.parse(row.data) as Record<string, unknown>;
      const text = (key: string): string | undefined => (typeof contact[key] === "string" ? (contact[key] as string).toLowerCase() : undefined);
      const name = text("name");
      if (name !== undefined && (name === wanted || name.split(" ")[0] === wanted)) return true;
      if (text("id") === wanted || text("email") === wanted) return true;
      const contactPhone = text("phone");
      if (contactPhone !== undefined && phone.length >= 6 && normalisePhone(contactPhone) === phone) return true;
    }
    return false;
  }
}

/** A fixed list (tests, evaluation). */
export function contactList(values: readonly string[]): ContactDirectory {
  const known = new Set(values.map((value) => value.trim().toLowerCase()));
  return { isKnown: (value) => known.has(value.trim().toLowerCase()) };
}
