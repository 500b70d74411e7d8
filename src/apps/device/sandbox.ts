import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { DatabaseHandle, Store, StoreTransaction } from "../../store/store.js";
import { StoreError } from "../../store/store.js";
import { ToolError } from "../../tools/tool.js";
import type { AppEnvironment } from "../app.js";

/**
 * The files app's sandbox: one real folder per profile. Every app that reads or
 * writes user files (email attachments, calendar .ics) goes through here, so
 * the same rules hold everywhere: nothing outside the folder, no `..`, no
 * symlink out of it, no hard link (it may share its content with a file
 * outside), writes atomic (temp file then rename) and journaled.
 *
 * A change to a file cannot commit with the database, so each one is written
 * ahead as an intent (a small file beside the sandbox, synced) before the
 * disk is touched, and the intents of an action are removed once it
 * committed. Opening the profile finishes what a killed process left: an
 * intent whose action committed is done (its rename happened before the
 * commit); one whose action never committed is rolled back, so no file is
 * left without its journal row.
 */
export const FILES_DIRECTORY_META = "files_directory";
export const FILE_CHANGE_KIND = "file";
/** Files larger than this are not written or journaled (the undo journal keeps copies). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** A file or folder change, journaled so undo can put the old content back. */
export interface FileChangePayload {
  /** Sandbox-relative, "/"-separated. */
  path: string;
  folder?: boolean;
  /** base64 content before (for a folder: "" when it existed); null when absent. */
  before: string | null;
  after: string | null;
  /** The name of the intent written ahead of the change (see `reconcileFileIntents`). */
  intent?: string;
}

/**
 * What is written ahead of a file change: what to put back (`before`), how to
 * recognise the new content (its sha256, not the content: the intent stays
 * small), and the temporary file it writes first.
 */
interface FileIntent {
  path: string;
  folder?: boolean;
  before: string | null;
  /** sha256 (hex) of the content after; null when the change removes it. For a folder: "" when made. */
  afterDigest: string | null;
  temporary?: string;
}

function digestOf(content: Buffer | null): string | null {
  return content === null ? null : createHash("sha256").update(content).digest("hex");
}

const temporarySandboxes = new Set<string>();
let cleanupRegistered = false;

/**
 * Make the sandbox folder ready and remember it in the store (tools only see the
 * store). A ":memory:" profile gets a temporary folder removed when the process exits.
 */
export function prepareSandbox(store: Store, environment: AppEnvironment): string {
  let root = environment.filesDirectory;
  if (root === undefined) {
    const temporary = mkdtempSync(join(tmpdir(), "botpsy-files-"));
    root = temporary;
    temporarySandboxes.add(temporary);
    // Gone with the profile; the exit handler below is for a process that never closes it.
    store.onClose(() => {
      rmSync(intentsFolderOf(temporary), { recursive: true, force: true });
      rmSync(temporary, { recursive: true, force: true });
      temporarySandboxes.delete(temporary);
    });
    if (!cleanupRegistered) {
      cleanupRegistered = true;
      process.once("exit", () => {
        for (const folder of temporarySandboxes) {
          rmSync(folder, { recursive: true, force: true });
          rmSync(intentsFolderOf(folder), { recursive: true, force: true });
        }
      });
    }
  }
  mkdirSync(root, { recursive: true });
  store.setMeta(FILES_DIRECTORY_META, root);
  store.registerUndoHandler(FILE_CHANGE_KIND, undoFileChange, checkFileUndo);
  reconcileFileIntents(store, root);
  return root;
}

/** Beside the sandbox, not in it: a tool can never read, write or plant an intent. */
function intentsFolderOf(root: string): string {
  const real = existsSync(root) ? realpathSync(root) : root;
  return join(dirname(real), `.${basename(real)}.intents`);
}

const transactionIntents = new WeakMap<StoreTransaction, { token: string; count: number; files: string[] }>();

/** Write the intent of one change, synced, before the change touches the disk; returns its name. */
function writeIntent(transaction: StoreTransaction, intent: FileIntent): string {
  let state = transactionIntents.get(transaction);
  if (state === undefined) {
    const created = { token: `${process.pid}-${Date.now()}-${randomBytes(4).toString("hex")}`, count: 0, files: [] as string[] };
    state = created;
    transactionIntents.set(transaction, created);
    // Committed: the changes are journaled; their intents are done with.
    transaction.onCommit(() => {
      for (const file of created.files) rmSync(file, { force: true });
    });
  }
  const folder = intentsFolderOf(sandboxRoot(transaction));
  mkdirSync(folder, { recursive: true });
  const name = `${state.token}-${String(++state.count).padStart(4, "0")}`;
  const file = join(folder, `${name}.json`);
  const descriptor = openSync(file, "wx", 0o600);
  try {
    writeSync(descriptor, JSON.stringify({ ...intent, intent: name }));
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  state.files.push(file);
  return name;
}

function intentFile(root: string, name: string): string {
  return join(intentsFolderOf(root), `${name}.json`);
}

/**
 * Finish what a killed process left in the sandbox, under the store's write
 * lock (no other process is then inside an action): intents of a committed
 * action are removed; those of an action that never committed are rolled
 * back newest first, unless the file was changed again since. Returns how
 * many intents were rolled back.
 */
export function reconcileFileIntents(store: Store, root: string): number {
  const folder = intentsFolderOf(root);
  if (!existsSync(folder) || readdirSync(folder).length === 0) return 0;
  return store.immediate(() => {
    const names = readdirSync(folder)
      .filter((name) => name.endsWith(".json"))
      .map((name) => name.slice(0, -".json".length))
      .sort();
    const committed = store.db.prepare(
      "SELECT 1 FROM action_changes WHERE external_kind = ? AND json_extract(external_payload, '$.intent') = ? LIMIT 1",
    );
    const byAction = new Map<string, string[]>();
    for (const name of names) {
      const token = name.slice(0, name.lastIndexOf("-"));
      byAction.set(token, [...(byAction.get(token) ?? []), name]);
    }
    let rolledBack = 0;
    for (const intents of byAction.values()) {
      const done = intents.some((name) => committed.get(FILE_CHANGE_KIND, name) !== undefined);
      for (const name of [...intents].reverse()) {
        const file = join(folder, `${name}.json`);
        if (!done) {
          let intent: FileIntent | undefined;
          try {
            intent = JSON.parse(readFileSync(file, "utf8")) as FileIntent;
          } catch {
            // Cut off while it was written: the change it announces never started.
          }
          if (intent !== undefined) {
            rollBackIntent(root, intent);
            rolledBack++;
          }
        }
        rmSync(file, { force: true });
      }
    }
    return rolledBack;
  });
}

function rollBackIntent(root: string, intent: FileIntent): void {
  const realRoot = realpathSync(root);
  const segments = intent.path.split("/");
  if (segments.includes("..")) return;
  const absolute = join(realRoot, ...segments);
  if (intent.temporary !== undefined) rmSync(join(dirname(absolute), intent.temporary), { force: true });
  if (intent.folder) {
    const exists = existsSync(absolute);
    if (intent.before === null && exists && lstatSync(absolute).isDirectory() && readdirSync(absolute).length === 0) rmdirSync(absolute);
    if (intent.before !== null && !exists) mkdirSync(absolute, { recursive: true });
    return;
  }
  const current = currentContent(absolute);
  // Not (or no longer) what the action wrote: never reached the disk, or changed since by something else. Leave it.
  if (digestOf(current) !== intent.afterDigest) return;
  const currentText = current === null ? null : current.toString("base64");
  // Already as it was before (the change wrote what was there).
  if (currentText === intent.before) return;
  if (intent.before === null) unlinkSync(absolute);
  else {
    mkdirSync(dirname(absolute), { recursive: true });
    writeAtomically(absolute, Buffer.from(intent.before, "base64"));
  }
}

export function sandboxRoot(tx: { getMeta(key: string): string | undefined }): string {
  const root = tx.getMeta(FILES_DIRECTORY_META);
  if (root === undefined || !existsSync(root)) {
    throw new ToolError("files_unavailable", "The files folder of this profile is not available. Load the files app with the profile, then retry.");
  }
  return root;
}

export interface SandboxPath {
  /** Sandbox-relative, "/"-separated ("" for the root). */
  relative: string;
  absolute: string;
}

/**
 * Resolve a path a model wrote ("notes/todo.txt") inside the sandbox, refusing
 * anything that would leave it.
 */
export function resolveSandboxPath(root: string, text: string, field = "path"): SandboxPath {
  const cleaned = text.trim().replaceAll("\\", "/");
  const realRoot = realpathSync(root);
  let candidate: string;
  if (isAbsolute(cleaned)) {
    const inside = [root, realRoot].map((base) => relative(base, cleaned)).find((rel) => rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)));
    if (inside === undefined) {
      throw new ToolError(
        "path_outside_sandbox",
        `${field}="${text}" is outside your files folder. Use a path relative to it, such as "notes/todo.txt".`,
      );
    }
    candidate = inside.replaceAll("\\", "/");
  } else {
    candidate = cleaned.replace(/^(\.\/)+/, "");
  }
  const segments = candidate.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) {
    throw new ToolError("path_outside_sandbox", `${field}="${text}" uses "..", which is not allowed. Use a path inside your files folder, such as "notes/todo.txt".`);
  }
  const relativePath = segments.join("/");
  const absolute = resolve(realRoot, ...segments);
  // The nearest part of the path that exists must resolve inside the sandbox:
  // that refuses a symlink anywhere along the way that points out of it.
  let existing = absolute;
  while (!existsSync(existing) && !isSymbolicLink(existing) && existing !== realRoot) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    throw new ToolError("path_outside_sandbox", `${field}="${text}" goes through a broken link. Use a path inside your files folder.`);
  }
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    throw new ToolError(
      "symlink_outside_sandbox",
      `${field}="${text}" leads through a link to a place outside your files folder, which is not allowed. Use another path.`,
    );
  }
  refuseHardLink(absolute, `${field}="${text}"`);
  return { relative: relativePath, absolute };
}

/**
 * A regular file with more than one name may be the same file as one outside
 * the sandbox (a hard link planted there): reading it would read that file,
 * writing it in place would change it. Refused like a symlink out.
 */
function refuseHardLink(absolute: string, what: string): void {
  let stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    return;
  }
  if (stats.isFile() && stats.nlink > 1) {
    throw new ToolError(
      "hard_link_in_sandbox",
      `${what} is a hard link (the same file has another name, maybe outside your files folder), which is not allowed. Use another file.`,
    );
  }
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export function readSandboxFile(tx: StoreTransaction, text: string, field = "path"): { path: SandboxPath; content: Buffer } {
  const path = resolveSandboxPath(sandboxRoot(tx), text, field);
  if (!existsSync(path.absolute)) {
    throw new ToolError("file_not_found", `There is no file "${path.relative}". List files with list_files to find the right name.`);
  }
  if (lstatSync(path.absolute).isDirectory()) {
    throw new ToolError("is_a_folder", `"${path.relative}" is a folder, not a file. List it with list_files(folder="${path.relative}").`);
  }
  return { path, content: readFileSync(path.absolute) };
}

function currentContent(absolute: string): Buffer | null {
  if (!existsSync(absolute)) return null;
  return lstatSync(absolute).isDirectory() ? null : readFileSync(absolute);
}

/** Write bytes atomically: a temporary file beside the target (named `temporary`, hidden), then rename over it. */
function writeAtomically(absolute: string, content: Buffer, temporary = `.${process.pid}-${Date.now()}-botpsy.tmp`): void {
  const path = join(dirname(absolute), temporary);
  writeFileSync(path, content);
  renameSync(path, absolute);
}

/**
 * Write (or with `content` null, delete) a sandbox file as part of the current
 * action: journaled so undo restores it; nothing touches the disk in a dry run.
 */
export function writeSandboxFile(
  context: { store: StoreTransaction; dryRun: boolean },
  path: SandboxPath,
  content: Buffer | null,
): void {
  if (content !== null && content.length > MAX_FILE_BYTES) {
    throw new ToolError("file_too_large", `The file would be ${content.length} bytes; the limit is ${MAX_FILE_BYTES}. Write a smaller file.`);
  }
  const before = currentContent(path.absolute);
  if (context.dryRun) return;
  if (content !== null) ensureFolder(context, dirname(path.absolute));
  const change: FileChangePayload = {
    path: path.relative,
    before: before === null ? null : before.toString("base64"),
    after: content === null ? null : content.toString("base64"),
  };
  const temporary = `.${basename(path.absolute)}.${randomBytes(6).toString("hex")}.botpsy.tmp`;
  const intent = writeIntent(context.store, { path: change.path, before: change.before, afterDigest: digestOf(content), temporary });
  context.store.recordExternal({ kind: FILE_CHANGE_KIND, payload: { ...change, intent } satisfies FileChangePayload });
  if (content === null) {
    if (before !== null) unlinkSync(path.absolute);
  } else {
    writeAtomically(path.absolute, content, temporary);
  }
}

/** Create a folder (and missing parents), each journaled. */
export function ensureFolder(context: { store: StoreTransaction; dryRun: boolean }, absolute: string): void {
  if (existsSync(absolute)) return;
  ensureFolder(context, dirname(absolute));
  if (context.dryRun) return;
  const root = realpathSync(sandboxRoot(context.store));
  const change: FileChangePayload = { path: relative(root, absolute).split(sep).join("/"), folder: true, before: null, after: "" };
  const intent = writeIntent(context.store, { path: change.path, folder: true, before: null, afterDigest: "" });
  context.store.recordExternal({ kind: FILE_CHANGE_KIND, payload: { ...change, intent } satisfies FileChangePayload });
  mkdirSync(absolute);
}

/** Remove an empty folder as part of the current action (journaled). */
export function removeFolder(context: { store: StoreTransaction; dryRun: boolean }, path: SandboxPath): void {
  if (context.dryRun) return;
  const change: FileChangePayload = { path: path.relative, folder: true, before: "", after: null };
  const intent = writeIntent(context.store, { path: change.path, folder: true, before: "", afterDigest: null });
  context.store.recordExternal({ kind: FILE_CHANGE_KIND, payload: { ...change, intent } satisfies FileChangePayload });
  rmdirSync(path.absolute);
}

function changedFile(payload: unknown, db: DatabaseHandle): { change: FileChangePayload; absolute: string; root: string } {
  const change = payload as FileChangePayload;
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(FILES_DIRECTORY_META) as { value: string } | undefined;
  if (!row) throw new StoreError("undo_unavailable", "Cannot undo a file change: this profile has no files folder.");
  return { change, absolute: join(realpathSync(row.value), ...change.path.split("/")), root: row.value };
}

/** A file must still hold what the action wrote, or undoing would lose a later edit. */
function checkFileUndo(payload: unknown, db: DatabaseHandle): void {
  const { change, absolute } = changedFile(payload, db);
  if (change.folder) return;
  const current = currentContent(absolute);
  if ((current === null ? null : current.toString("base64")) !== change.after) {
    throw new StoreError("undo_conflict", `Cannot undo the change to "${change.path}": the file was changed again since. Undo the later change first.`);
  }
}

function undoFileChange(payload: unknown, db: DatabaseHandle): void {
  const { change, absolute, root } = changedFile(payload, db);
  try {
    revertFileChange(change, absolute, db, payload);
  } finally {
    // An action that failed is rolled back here: its intent is settled either way.
    if (change.intent !== undefined) rmSync(intentFile(root, change.intent), { force: true });
  }
}

function revertFileChange(change: FileChangePayload, absolute: string, db: DatabaseHandle, payload: unknown): void {
  if (change.folder) {
    const exists = existsSync(absolute);
    // A folder that has gained other files since stays: undo never deletes what it did not make.
    if (change.before === null && exists && readdirSync(absolute).length === 0) rmdirSync(absolute);
    if (change.before !== null && !exists) mkdirSync(absolute, { recursive: true });
    return;
  }
  const current = currentContent(absolute);
  // A change that failed before it reached the disk has nothing to take back.
  if ((current === null ? null : current.toString("base64")) === change.before) return;
  checkFileUndo(payload, db);
  if (change.before === null) {
    if (existsSync(absolute)) unlinkSync(absolute);
  } else {
    mkdirSync(dirname(absolute), { recursive: true });
    writeAtomically(absolute, Buffer.from(change.before, "base64"));
  }
}
