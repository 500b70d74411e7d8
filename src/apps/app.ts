import type { Tool } from "../tools/tool.js";
import type { Migration, Store, StoreTransaction } from "../store/store.js";

/** The six groups of the product brief; "other" is for multi-app or uncategorised work. */
export const APP_GROUPS = ["device", "work", "messages", "finding", "life", "errands"] as const;
export type AppGroup = (typeof APP_GROUPS)[number];

export const APP_GROUP_TITLES: Record<AppGroup, string> = {
  device: "Your phone and computer",
  work: "Work",
  messages: "Messages",
  finding: "Finding things out",
  life: "Daily life and media",
  errands: "Errands",
};

/** One GET an app asks for: the URL, the Accept header, and the tool call's signal. */
export interface WebFetchRequest {
  url: string;
  accept: string;
  signal: AbortSignal;
}

/** The answer to a GET: the HTTP status and the body as text. */
export interface WebFetchResponse {
  status: number;
  body: string;
}

export type WebFetcher = (request: WebFetchRequest) => Promise<WebFetchResponse>;

/** What `botpsy apps show <app>` prints. */
export interface AppView {
  /** For a person: short, readable, as the app itself would show it. */
  text: string;
  /** For machines (`--json`). */
  data: unknown;
}

/** What an app may need at runtime beyond the store. */
export interface AppEnvironment {
  /** BOTPSY_HOME of the profile (the files app keeps its sandbox under it). */
  home: string;
  /** Optional providers the user configured (web search URL, weather URL, RSS feeds). */
  providers: Record<string, string | undefined>;
  /**
   * How the apps' HTTP GETs to those providers (and the pages open_page
   * reads) go out. Default: this machine's own network. A run that sends
   * them through a computer of the user's (`--web-via <peer>`) sets it; a
   * failure of it must be a ToolError, never a quiet fall back to fetch.
   */
  webFetcher?: WebFetcher;
  /** The profile's clock: fixed for evaluation and demos that must repeat, the system clock otherwise. */
  now(): Date;
  /** The profile's IANA time zone. */
  timeZone: string;
  /** The profile's files folder (the files app's sandbox); undefined for a throwaway ":memory:" profile. */
  filesDirectory?: string;
}

export interface App {
  /** Short lower-case id: `alarms`, `calendar`, `car`… Records are stored under it. */
  name: string;
  group: AppGroup;
  title: string;
  description: string;
  tools: Tool[];
  /** Extra SQL this app needs beyond journaled records (rarely needed). */
  migrations?: Migration[];
  /**
   * Called by Profile.open() once the store is migrated, before seeding: register
   * undo handlers for external changes, prepare folders.
   */
  attach?(store: Store, environment: AppEnvironment): void;
  /** Fill the app with the deterministic demo persona's data. */
  seed?(tx: StoreTransaction, environment: AppEnvironment): void;
  view(tx: StoreTransaction, environment: AppEnvironment): AppView;
  /**
   * What comes due in the window (from, to]: an alarm ringing, an event's
   * reminder. The notification watcher asks every app while botpsy runs.
   */
  due?(tx: StoreTransaction, environment: AppEnvironment, from: Date, to: Date): AppNotification[];
}

/** Something an app tells the user about at a moment: an alarm, a timer, a reminder. */
export interface AppNotification {
  app: string;
  kind: "alarm" | "timer" | "reminder";
  /** ISO instant it is due. */
  at: string;
  /** One line for the user: "Reminder: Dentist at 15:00 (in 30 min)". */
  message: string;
}
