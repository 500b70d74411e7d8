import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App } from "../app.js";
import {
  ensureFolder,
  prepareSandbox,
  readSandboxFile,
  removeFolder,
  resolveSandboxPath,
  sandboxRoot,
  writeSandboxFile,
  type SandboxPath,
} from "./sandbox.js";

const LIST_LIMIT = 50;
const SEARCH_LIMIT = 20;
const READ_LIMIT_CHARACTERS = 8000;
const SEARCH_CONTENT_MAX_BYTES = 512 * 1024;

const pathField = (example: string) => z.string().min(1).describe(`Path inside your files folder. Example: "${example}"`);

interface Entry {
  path: string;
  name: string;
  type: "file" | "folder";
  size: number;
  modified: string;
}

function isHidden(name: string): boolean {
  return name.startsWith(".");
}

function entryOf(root: string, relative: string): Entry {
  const stats = lstatSync(join(root, ...relative.split("/")));
  const name = relative.split("/").at(-1) ?? relative;
  return {
    path: relative,
    name,
    type: stats.isDirectory() ? "folder" : "file",
    size: stats.isDirectory() ? 0 : stats.size,
    modified: stats.mtime.toISOString(),
  };
}

/** Every visible file under `folder`, depth first, at most `limit`. */
function walk(absoluteRoot: string, relativeFolder: string, limit: number, into: string[] = []): string[] {
  const absolute = relativeFolder === "" ? absoluteRoot : join(absoluteRoot, ...relativeFolder.split("/"));
  for (const name of readdirSync(absolute).sort()) {
    if (into.length >= limit) break;
    if (isHidden(name)) continue;
    const relative = relativeFolder === "" ? name : `${relativeFolder}/${name}`;
    const stats = lstatSync(join(absolute, name));
    // A link (symbolic, or hard: another name of a file perhaps outside) is never searched.
    if (stats.isSymbolicLink() || (stats.isFile() && stats.nlink > 1)) continue;
    if (stats.isDirectory()) walk(absoluteRoot, relative, limit, into);
    else into.push(relative);
  }
  return into;
}

/** Text, not binary: no NUL byte and valid UTF-8 in the first 8 KB. */
export function looksLikeText(content: Buffer): boolean {
  const head = content.subarray(0, 8192);
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.length === content.length ? head : content.subarray(0, trimToCharacter(head)));
    return true;
  } catch {
    return false;
  }
}

/** Do not cut a multi-byte character in two when decoding a prefix. */
function trimToCharacter(head: Buffer): number {
  let end = head.length;
  while (end > 0 && end > head.length - 4 && ((head[end - 1] ?? 0) & 0xc0) === 0x80) end--;
  return end > 0 && (head[end - 1] ?? 0) >= 0xc0 ? end - 1 : head.length;
}

function requireAbsent(path: SandboxPath, field: string): void {
  if (existsSync(path.absolute)) {
    throw new ToolError(
      "file_exists",
      `${field}="${path.relative}" already exists. Choose another name, or delete it first with delete_file.`,
    );
  }
}

function requireFile(tx: StoreTransaction, text: string, field: string): { path: SandboxPath; content: Buffer } {
  return readSandboxFile(tx, text, field);
}

const listFiles = defineTool({
  name: "list_files",
  description: "List the files and folders in a folder of your files (the top folder when none is given).",
  input: z.object({ folder: z.string().optional().describe('Folder to list. Example: "notes". Leave out for the top folder.') }),
  risk: "read",
  run: ({ folder }, context) => {
    const root = sandboxRoot(context.store);
    const path = resolveSandboxPath(root, folder ?? "", "folder");
    if (!existsSync(path.absolute)) {
      throw new ToolError("folder_not_found", `There is no folder "${path.relative}". Call list_files with no folder to see the top folder.`);
    }
    if (!lstatSync(path.absolute).isDirectory()) {
      throw new ToolError("not_a_folder", `"${path.relative}" is a file, not a folder. Read it with read_file(path="${path.relative}").`);
    }
    const names = readdirSync(path.absolute).filter((name) => !isHidden(name)).sort();
    const entries = names.slice(0, LIST_LIMIT).map((name) => entryOf(path.absolute, name));
    return {
      folder: path.relative === "" ? "/" : path.relative,
      entries: entries.map((entry) => ({
        ...entry,
        path: path.relative === "" ? entry.name : `${path.relative}/${entry.name}`,
      })),
      ...(names.length > LIST_LIMIT ? { more: names.length - LIST_LIMIT } : {}),
    };
  },
});

const readFile = defineTool({
  name: "read_file",
  description: "Read a text file from your files.",
  input: z.object({ path: pathField("notes/ideas.md") }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ path }, context) => {
    const file = requireFile(context.store, path, "path");
    if (!looksLikeText(file.content)) {
      throw new ToolError("not_text", `"${file.path.relative}" is not a text file (${file.content.length} bytes); it cannot be read as text.`);
    }
    const text = file.content.toString("utf8");
    return {
      path: file.path.relative,
      size: file.content.length,
      content: text.slice(0, READ_LIMIT_CHARACTERS),
      ...(text.length > READ_LIMIT_CHARACTERS ? { truncated: true, totalCharacters: text.length } : {}),
    };
  },
});

const writeFile = defineTool({
  name: "write_file",
  description: "Write a text file in your files: create a new one, overwrite, or append to it.",
  input: z.object({
    path: pathField("notes/todo.txt"),
    content: z.string().describe('The text to write. Example: "Buy milk"'),
    mode: z
      .enum(["create", "overwrite", "append"])
      .optional()
      .describe('"create" (default, refuses an existing file), "overwrite" or "append".'),
  }),
  risk: "write",
  run: ({ path, content, mode = "create" }, context) => {
    const target = resolveSandboxPath(sandboxRoot(context.store), path);
    if (target.relative === "") throw new ToolError("invalid_path", 'path names no file. Give a file name such as "notes/todo.txt".');
    const exists = existsSync(target.absolute);
    if (exists && lstatSync(target.absolute).isDirectory()) {
      throw new ToolError("is_a_folder", `"${target.relative}" is a folder. Give a file name inside it, such as "${target.relative}/new.txt".`);
    }
    if (mode === "create" && exists) {
      throw new ToolError("file_exists", `"${target.relative}" already exists. Use mode="overwrite" to replace it or mode="append" to add to it.`);
    }
    const previous = mode === "append" && exists ? readFileSync(target.absolute) : Buffer.alloc(0);
    const next = Buffer.concat([previous, Buffer.from(content, "utf8")]);
    writeSandboxFile(context, target, next);
    return { path: target.relative, size: next.length, mode, created: !exists };
  },
});

const createFolder = defineTool({
  name: "create_folder",
  description: "Create a folder in your files.",
  input: z.object({ path: pathField("projects/2027") }),
  risk: "write",
  run: ({ path }, context) => {
    const target = resolveSandboxPath(sandboxRoot(context.store), path);
    requireAbsent(target, "path");
    ensureFolder(context, target.absolute);
    return { folder: target.relative, created: true };
  },
});

function transfer(kind: "move" | "copy") {
  return ({ from, to }: { from: string; to: string }, context: { store: StoreTransaction; dryRun: boolean }) => {
    const source = requireFile(context.store, from, "from");
    let target = resolveSandboxPath(sandboxRoot(context.store), to, "to");
    // Like `mv a.txt folder/`: into an existing folder keeps the name.
    if (existsSync(target.absolute) && lstatSync(target.absolute).isDirectory()) {
      target = resolveSandboxPath(sandboxRoot(context.store), `${target.relative}/${source.path.relative.split("/").at(-1) ?? ""}`, "to");
    }
    if (target.relative === source.path.relative) {
      throw new ToolError("same_path", `from and to are the same file ("${target.relative}"). Give a different destination.`);
    }
    requireAbsent(target, "to");
    writeSandboxFile(context, target, source.content);
    if (kind === "move") writeSandboxFile(context, source.path, null);
    return { from: source.path.relative, to: target.relative, size: source.content.length, [kind === "move" ? "moved" : "copied"]: true };
  };
}

const transferInput = z.object({ from: pathField("notes/old.txt"), to: pathField("archive/old.txt") });

const moveFile = defineTool({
  name: "move_file",
  description: "Move or rename a file in your files.",
  input: transferInput,
  risk: "write",
  run: transfer("move"),
});

const copyFile = defineTool({
  name: "copy_file",
  description: "Copy a file in your files to a new path.",
  input: transferInput,
  risk: "write",
  run: transfer("copy"),
});

const deleteFile = defineTool({
  name: "delete_file",
  description: "Delete a file (or an empty folder) from your files.",
  input: z.object({ path: pathField("notes/old.txt") }),
  risk: "destructive",
  run: ({ path }, context) => {
    const target = resolveSandboxPath(sandboxRoot(context.store), path);
    if (target.relative === "") throw new ToolError("invalid_path", "The top folder cannot be deleted. Name a file inside it.");
    if (!existsSync(target.absolute)) {
      throw new ToolError("file_not_found", `There is no file "${target.relative}". List files with list_files to find the right name.`);
    }
    if (lstatSync(target.absolute).isDirectory()) {
      const inside = readdirSync(target.absolute).filter((name) => !isHidden(name));
      if (inside.length > 0) {
        throw new ToolError("folder_not_empty", `The folder "${target.relative}" holds ${inside.length} item(s). Delete or move them first.`);
      }
      removeFolder(context, target);
      return { deleted: target.relative, type: "folder" };
    }
    const size = lstatSync(target.absolute).size;
    writeSandboxFile(context, target, null);
    return { deleted: target.relative, type: "file", size };
  },
});

const searchFiles = defineTool({
  name: "search_files",
  description: "Search your files by name and by the text inside them.",
  input: z.object({
    query: z.string().min(1).describe('Words to look for. Example: "budget"'),
    folder: z.string().optional().describe('Only search this folder. Example: "notes"'),
  }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ query, folder }, context) => {
    const root = sandboxRoot(context.store);
    const scope = resolveSandboxPath(root, folder ?? "", "folder");
    if (!existsSync(scope.absolute) || !lstatSync(scope.absolute).isDirectory()) {
      throw new ToolError("folder_not_found", `There is no folder "${scope.relative}". Leave folder out to search everything.`);
    }
    const wanted = query.trim().toLowerCase();
    const realRoot = resolveSandboxPath(root, "").absolute;
    const results: { path: string; match: "name" | "content"; snippet?: string }[] = [];
    let total = 0;
    for (const relative of walk(realRoot, scope.relative, 5000)) {
      const name = relative.split("/").at(-1) ?? relative;
      if (name.toLowerCase().includes(wanted)) {
        total++;
        if (results.length < SEARCH_LIMIT) results.push({ path: relative, match: "name" });
        continue;
      }
      const absolute = join(realRoot, ...relative.split("/"));
      if (lstatSync(absolute).size > SEARCH_CONTENT_MAX_BYTES) continue;
      const content = readFileSync(absolute);
      if (!looksLikeText(content)) continue;
      const text = content.toString("utf8");
      const at = text.toLowerCase().indexOf(wanted);
      if (at < 0) continue;
      total++;
      if (results.length < SEARCH_LIMIT) {
        const start = Math.max(0, at - 40);
        results.push({ path: relative, match: "content", snippet: text.slice(start, at + wanted.length + 40).replace(/\s+/g, " ").trim() });
      }
    }
    return { query, results, ...(total > results.length ? { more: total - results.length } : {}) };
  },
});

/** The demo persona's files: notes, documents and work files, text so every tool has something to act on. */
const SEED_FILES: Record<string, string> = {
  "notes/ideas.md": "# Ideas\n\n- Weekend trip to Sintra with Maria\n- Learn to make pastel de nata\n- Replace the bike's back tyre\n",
  "notes/meeting-notes.md":
    "# Team sync\n\nAttendees: Frank, Priya, Tom\n\n- Q4 report due Friday\n- Frank presents the roadmap next week\n- Budget review with Priya on Thursday\n",
  "notes/packing-list.txt": "passport\nphone charger\nsunglasses\nrunning shoes\n",
  "documents/budget-2026.csv": "month,rent,groceries,transport,fun\nJanuary,1100,320,60,150\nFebruary,1100,300,60,120\nMarch,1100,340,75,180\n",
  "documents/apartment-lease.txt":
    "Lease: Rua das Flores 12, Lisbon. Tenant: Sam Rivera. Monthly rent 1100 EUR, due on the 1st. Notice period: 60 days.\n",
  "work/q4-report-draft.md": "# Q4 report (draft)\n\nRevenue grew 12% over Q3. Churn fell to 2.1%.\nOpen question for Priya: hiring plan for Q1.\n",
  "work/project-plan.md": "# Project Atlas\n\n1. Discovery (done)\n2. Prototype (in progress, Frank)\n3. Pilot with Omar's team (January)\n",
};

export const filesApp: App = {
  name: "files",
  group: "device",
  title: "Files",
  description: "Your files and documents, in a private folder of the profile.",
  tools: [listFiles, readFile, writeFile, createFolder, moveFile, copyFile, deleteFile, searchFiles],
  attach(store, environment) {
    prepareSandbox(store, environment);
  },
  seed(tx, environment) {
    const root = sandboxRoot(tx);
    // The demo files were last changed at the profile's clock, not when the disk was written:
    // a profile on a fixed clock lists the same times on every machine and every run.
    const seededAt = environment.now();
    const touched = new Set<string>();
    for (const [relative, content] of Object.entries(SEED_FILES)) {
      const absolute = join(root, ...relative.split("/"));
      mkdirSync(dirname(absolute), { recursive: true });
      writeFileSync(absolute, content);
      touched.add(absolute);
      for (let folder = dirname(absolute); folder.startsWith(root) && folder !== root; folder = dirname(folder)) touched.add(folder);
    }
    for (const path of touched) utimesSync(path, seededAt, seededAt);
  },
  view(tx) {
    const root = resolveSandboxPath(sandboxRoot(tx), "").absolute;
    const files = walk(root, "", 200).map((relative) => entryOf(root, relative));
    const text = files.length === 0 ? "No files." : files.map((file) => `${file.path.padEnd(40)} ${String(file.size).padStart(8)} B`).join("\n");
    return { text, data: { files } };
  },
};
