import type Database from "better-sqlite3";
import { BotpsyError } from "../errors.js";

export type DatabaseHandle = Database.Database;

/** One step of a schema: SQL text or a function over the open database. */
export type Migration = string | ((db: DatabaseHandle) => void);

export class StoreError extends BotpsyError {}

/** A change made to app state inside one action; kept so the action can be undone. */
export interface Change {
  app: string;
  collection: string;
  recordId: string;
  /** null when the record did not exist before. */
  before: unknown;
  /** null when the record was deleted. */
  after: unknown;
}

/** A change outside the records table (a file on disk): undone by the handler registered for its kind. */
export interface ExternalChange {
  kind: string;
  payload: unknown;
}

export interface ActionInfo {
  tool: string;
  args: unknown;
  sessionId?: string;
  /** The agent run and the call this action carries out, when an agent made it. */
  runId?: string;
  callId?: string;
}

/** What a commit hook learns of an action about to commit; `actionId` is undefined when it changed nothing. */
export interface CommittingAction {
  info: ActionInfo;
  actionId: number | undefined;
  value: unknown;
  transaction: StoreTransaction;
}

export type ActionCommitHook = (action: CommittingAction) => void;

export interface ActionRecord {
  id: number;
  tool: string;
  args: unknown;
  sessionId: string | null;
  at: string;
  undone: boolean;
  changes: Change[];
}

export interface UndoneAction {
  id: number;
  tool: string;
  args: unknown;
  changeCount: number;
}

/** A record as an undo left it: `data` null when the undo deleted it. */
export interface RestoredRecord {
  app: string;
  collection: string;
  recordId: string;
  data: unknown;
}

export type RestoreListener = (restored: RestoredRecord[]) => void;

/** Undo handlers get the payload and must restore the state before the change. */
export type UndoHandler = (payload: unknown, db: DatabaseHandle) => void;

/**
 * Optional check run for every external change of an action before any of it
 * is reverted: it throws (an `undo_conflict` StoreError) when the change cannot
 * be undone, so a conflict found late never leaves an action half reverted.
 */
export type UndoCheck = (payload: unknown, db: DatabaseHandle) => void;

export interface Collection<T> {
  get(id: string): T | undefined;
  /** Every record, in insertion order. */
  all(): T[];
  find(predicate: (value: T) => boolean): T[];
  put(id: string, value: T): void;
  /** Apply `update` to the record; throws when it does not exist. */
  update(id: string, update: (value: T) => T): T;
  delete(id: string): boolean;
  /** A fresh id `prefix-N`, never reused within the collection. */
  nextId(prefix: string): string;
}

/** The view of the store a tool call gets: reads and writes that are journaled for undo. */
export interface StoreTransaction {
  readonly db: DatabaseHandle;
  collection<T>(app: string, name: string): Collection<T>;
  /** Record a change outside the records table (undone by the handler for `kind`). */
  recordExternal(change: ExternalChange): void;
  /** Work to do only once the transaction committed (a timer to arm, a file to publish). */
  onCommit(callback: () => void): void;
  /** Profile-level settings (clock, time zone, signed-in accounts…). */
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  readonly changes: readonly Change[];
}
