import { PERSONA } from "../apps/persona.js";

/** Values the recipes draw from, shared by the recipe files. */

export const CITIES = ["Porto", "Faro", "Coimbra", "Madrid", "Barcelona", "Seville", "Valencia", "Paris", "Lyon", "Nice", "London", "Dublin", "Amsterdam", "Berlin", "Munich", "Vienna", "Prague", "Zurich"];
export const FIRST_NAMES = PERSONA.contacts.filter((contact) => contact.id !== "chen" && contact.id !== "mom").map((contact) => contact.name.split(" ")[0]!);
export const MESSAGE_TEXTS = ["I'll be ten minutes late", "Dinner at eight works for me", "Can you bring the charger tomorrow?", "Landed safely, talk soon", "Thanks for the help today!"];
