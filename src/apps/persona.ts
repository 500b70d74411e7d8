/**
 * The demo persona every app seeds from, so that the apps agree with each
 * other: the people in the calendar are in the contacts, the car is at home…
 * Deterministic: seeds derive dates from the profile clock at seed time.
 */
export interface PersonaContact {
  id: string;
  name: string;
  email: string;
  phone: string;
  relation: string;
}

export const PERSONA = {
  name: "Sam Rivera",
  email: "sam.rivera@example.com",
  phone: "+351 912 000 001",
  homeCity: "Lisbon",
  homeAddress: "Rua das Flores 12, Lisbon",
  workAddress: "Avenida da Liberdade 110, Lisbon",
  timeZone: "Europe/Lisbon",
  currency: "EUR",
  contacts: [
    { id: "frank", name: "Frank Miller", email: "frank.miller@example.com", phone: "+351 912 000 101", relation: "colleague" },
    { id: "maria", name: "Maria Lopez", email: "maria.lopez@example.com", phone: "+351 912 000 102", relation: "friend" },
    { id: "priya", name: "Priya Shah", email: "priya.shah@example.com", phone: "+351 912 000 103", relation: "manager" },
    { id: "tom", name: "Tom Becker", email: "tom.becker@example.com", phone: "+351 912 000 104", relation: "colleague" },
    { id: "ana", name: "Ana Rivera", email: "ana.rivera@example.com", phone: "+351 912 000 105", relation: "sister" },
    { id: "mom", name: "Mom", email: "lucia.rivera@example.com", phone: "+351 912 000 106", relation: "mother" },
    { id: "chen", name: "Dr. Wei Chen", email: "reception@smiledental.example.com", phone: "+351 213 000 107", relation: "dentist" },
    { id: "jules", name: "Jules Martin", email: "jules.martin@example.com", phone: "+351 912 000 108", relation: "friend" },
    { id: "omar", name: "Omar Haddad", email: "omar.haddad@example.com", phone: "+351 912 000 109", relation: "client" },
    { id: "lena", name: "Lena Vogel", email: "lena.vogel@example.com", phone: "+351 912 000 110", relation: "colleague" },
  ] satisfies PersonaContact[],
} as const;

/** Find a contact of the persona by id, full name, first name or address (case-insensitive). */
export function findPersonaContact(query: string): PersonaContact | undefined {
  const wanted = query.trim().toLowerCase();
  return PERSONA.contacts.find(
    (contact) =>
      contact.id === wanted ||
      contact.name.toLowerCase() === wanted ||
      contact.name.toLowerCase().split(" ")[0] === wanted ||
      contact.email === wanted ||
      contact.phone === wanted,
  );
}
