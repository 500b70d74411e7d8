import type { App } from "../app.js";
import { contactsApp } from "./contacts.js";
import { messagesApp } from "./messages.js";

/** The apps of the "messages" group. Contacts first: messages resolve names through them. */
export const messagesApps: App[] = [contactsApp, messagesApp];
