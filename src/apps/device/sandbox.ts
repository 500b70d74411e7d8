import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { DatabaseHandle, Store, StoreTransaction } from "../../store/store.js";
import { StoreError } from "../../store/store.js";
import { ToolError } from "../../tools/tool.js";
import type { AppEnvironment } from "../app.js";

/**
 * The files app's sandbox: one real folder per profile. Every app that reads or
 * writes user files (email attachments, calendar .ics) goes through here, so
 * the same rules hold everywhere: nothing outside the folder, no `..`, no
 * symlink out of it, writes atomic (temp file then rename) and journaled.
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
    root = mkdtempSync(join(tmpdir(), "botpsy-files-"));
    temporarySandboxes.add(root);
    if (!cleanupRegistered) {
      cleanupRegistered = true;
      process.once("exit", () => {
        for (const folder of temporarySandboxes) rmSync(folder, { recursive: true, force: true });
      });
    }
  }
  mkdirSync(root, { recursive: true });
  store.setMeta(FILES_DIRECTORY_META, root);
  store.registerUndoHandler(FILE_CHANGE_KIND, undoFileChange, checkFileUndo);
  return root;
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
  return { relative: relativePath, absolute };
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

/** Write bytes atomically: a temporary file beside the target, then rename over it. */
function writeAtomically(absolute: string, content: Buffer): void {
  const temporary = join(dirname(absolute), `.${process.pid}-${Date.now()}-botpsy.tmp`);
  writeFileSync(temporary, content);
  renameSync(temporary, absolute);
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
  context.store.recordExternal({
    kind: FILE_CHANGE_KIND,
    payload: {
      path: path.relative,
      before: before === null ? null : before.toString("base64"),
      after: content === null ? null : content.toString("base64"),
    } satisfies FileChangePayload,
  });
  if (content === null) {
    if (before !== null) unlinkSync(path.absolute);
  } else {
    writeAtomically(path.absolute, content);
  }
}

/** Create a folder (and missing parents), each journaled. */
export function ensureFolder(context: { store: StoreTransaction; dryRun: boolean }, absolute: string): void {
  if (existsSync(absolute)) return;
  ensureFolder(context, dirname(absolute));
  if (context.dryRun) return;
  const root = realpathSync(sandboxRoot(context.store));
  context.store.recordExternal({
    kind: FILE_CHANGE_KIND,
    payload: { path: relative(root, absolute).split(sep).join("/"), folder: true, before: null, after: "" } satisfies FileChangePayload,
  });
  mkdirSync(absolute);
}

/** Remove an empty folder as part of the current action (journaled). */
export function removeFolder(context: { store: StoreTransaction; dryRun: boolean }, path: SandboxPath): void {
  if (context.dryRun) return;
  context.store.recordExternal({
    kind: FILE_CHANGE_KIND,
    payload: { path: path.relative, folder: true, before: "", after: null } satisfies FileChangePayload,
  });
  rmdirSync(path.absolute);
}

function changedFile(payload: unknown, db: DatabaseHandle): { change: FileChangePayload; absolute: string } {
  const change = payload as FileChangePayload;
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(FILES_DIRECTORY_META) as { value: string } | undefined;
  if (!row) throw new StoreError("undo_unavailable", "Cannot undo a file change: this profile has no files folder.");
  return { change, absolute: join(realpathSync(row.value), ...change.path.split("/")) };
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
  const { change, absolute } = changedFile(payload, db);
  if (change.folder) {
    const exists = existsSync(absolute);
    // A folder that has gained other files since stays: undo never deletes what it did not make.
    if (change.before === null && exists && readdirSync(absolute).length === 0) rmdirSync(absolute);
    if (change.before !== null && !exists) mkdirSync(absolute, { recursive: true });
    return;
  }
  checkFileUndo(payload, db);
  if (change.before === null) {
    if (existsSync(absolute)) unlinkSync(absolute);
  } else {
    mkdirSync(dirname(absolute), { recursive: true });
    writeAtomically(absolute, Buffer.from(change.before, "base64"));
  }
}
