import { ApiExecutionError, type MethodDefinition, StatefulApi, isRecord, splitLines } from "./stateful-api.js";

interface FileNode {
  kind: "file";
  name: string;
  content: string;
}

interface DirectoryNode {
  kind: "directory";
  name: string;
  parent: DirectoryNode | undefined;
  contents: Map<string, FileNode | DirectoryNode>;
}

type Node = FileNode | DirectoryNode;
type Result = Record<string, unknown> | null;

const INVALID_NAME_CHARACTERS = /[|/\\?%*:"><]/;

function newDirectory(name: string, parent: DirectoryNode | undefined): DirectoryNode {
  return { kind: "directory", name, parent, contents: new Map() };
}

/** Adds a file, failing as the reference does when the name is taken. */
function addFile(directory: DirectoryNode, name: string, content = ""): void {
  if (directory.contents.has(name)) throw new ApiExecutionError(`File '${name}' already exists in directory '${directory.name}'.`);
  directory.contents.set(name, { kind: "file", name, content });
}

function addDirectory(directory: DirectoryNode, name: string): DirectoryNode {
  if (directory.contents.has(name)) throw new ApiExecutionError(`Directory '${name}' already exists in directory '${directory.name}'.`);
  const created = newDirectory(name, directory);
  directory.contents.set(name, created);
  return created;
}

function itemIn(directory: DirectoryNode, name: string): Node | undefined {
  return name === "." ? directory : directory.contents.get(name);
}

function snapshot(node: Node): Record<string, unknown> {
  if (node.kind === "file") return { type: "file", name: node.name, content: node.content };
  return {
    type: "directory",
    name: node.name,
    contents: Object.fromEntries([...node.contents].map(([name, child]) => [name, snapshot(child)])),
  };
}

/** BFCL's GorillaFileSystem: a small Unix-like file tree navigated one folder at a time. */
export class GorillaFileSystem extends StatefulApi {
  readonly className = "GorillaFileSystem";
  private root: DirectoryNode = newDirectory("/", undefined);
  private currentDirectory: DirectoryNode = this.root;
  private longContext = false;

  load(config: Record<string, unknown>): void {
    this.longContext = false;
    this.root = newDirectory("/", undefined);
    if (isRecord(config.root)) {
      const [rootName, rootData] = Object.entries(config.root)[0] ?? [];
      if (rootName !== undefined) {
        this.root = newDirectory(rootName, undefined);
        this.loadDirectory(isRecord(rootData) && isRecord(rootData.contents) ? rootData.contents : {}, this.root);
      }
    }
    this.currentDirectory = this.root;
  }

  private loadDirectory(entries: Record<string, unknown>, parent: DirectoryNode): void {
    for (const [name, data] of Object.entries(entries)) {
      if (!isRecord(data)) continue;
      if (data.type === "directory") {
        const directory = newDirectory(name, parent);
        this.loadDirectory(isRecord(data.contents) ? data.contents : {}, directory);
        parent.contents.set(name, directory);
      } else if (data.type === "file") {
        parent.contents.set(name, { kind: "file", name, content: typeof data.content === "string" ? data.content : "" });
      }
    }
  }

  state(): Record<string, unknown> {
    // Directories compare by name and contents (never by parent), as upstream's __eq__ does.
    return { root: snapshot(this.root), long_context: this.longContext };
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    pwd: { parameters: [], run: () => this.pwd() },
    ls: { parameters: ["a?"], run: (args) => this.ls(args.has("a") ? args.boolean("a") : false) },
    cd: { parameters: ["folder"], run: (args) => this.cd(args.string("folder")) },
    mkdir: { parameters: ["dir_name"], run: (args) => this.mkdir(args.string("dir_name")) },
    touch: { parameters: ["file_name"], run: (args) => this.touch(args.string("file_name")) },
    echo: { parameters: ["content", "file_name?"], run: (args) => this.echo(args.string("content"), args.optionalString("file_name")) },
    cat: { parameters: ["file_name"], run: (args) => this.cat(args.string("file_name")) },
    find: { parameters: ["path?", "name?"], run: (args) => this.find(args.optionalString("path") ?? ".", args.optionalString("name")) },
    wc: { parameters: ["file_name", "mode?"], run: (args) => this.wc(args.string("file_name"), args.optionalString("mode") ?? "l") },
    sort: { parameters: ["file_name"], run: (args) => this.sort(args.string("file_name")) },
    grep: { parameters: ["file_name", "pattern"], run: (args) => this.grep(args.string("file_name"), args.string("pattern")) },
    du: { parameters: ["human_readable?"], run: (args) => this.du(args.has("human_readable") ? args.boolean("human_readable") : false) },
    tail: { parameters: ["file_name", "lines?"], run: (args) => this.tail(args.string("file_name"), args.optionalNumber("lines") ?? 10) },
    diff: { parameters: ["file_name1", "file_name2"], run: (args) => this.diff(args.string("file_name1"), args.string("file_name2")) },
    mv: { parameters: ["source", "destination"], run: (args) => this.move(args.string("source"), args.string("destination")) },
    rm: { parameters: ["file_name"], run: (args) => this.remove(args.string("file_name")) },
    rmdir: { parameters: ["dir_name"], run: (args) => this.removeDirectory(args.string("dir_name")) },
    cp: { parameters: ["source", "destination"], run: (args) => this.copy(args.string("source"), args.string("destination")) },
  };

  private pwd(): Result {
    const names: string[] = [];
    for (let directory: DirectoryNode | undefined = this.currentDirectory; directory; directory = directory.parent) names.push(directory.name);
    return { current_working_directory: "/" + names.reverse().join("/") };
  }

  private ls(all: boolean): Result {
    let contents = [...this.currentDirectory.contents.keys()];
    if (!all) contents = contents.filter((name) => !name.startsWith("."));
    return { current_directory_content: contents };
  }

  private cd(requested: string): Result {
    let folder = requested.replace(/\/+$/, "");
    if (folder === "") folder = "/";
    if (![".", "..", "/"].includes(folder) && folder.includes("/")) {
      return { error: `cd: ${folder}: Unsupported path. Only one folder level at a time is supported.` };
    }
    if (folder === "..") {
      if (this.currentDirectory.parent) this.currentDirectory = this.currentDirectory.parent;
      else if (this.currentDirectory === this.root) return { error: "Current directory is already the root. Cannot go back." };
      else return { error: "cd: ..: No such directory" };
      return {};
    }
    const target = this.navigate(folder);
    if (!("kind" in target)) return target;
    this.currentDirectory = target;
    return { current_working_directory: target.name };
  }

  private mkdir(name: string): Result {
    if (INVALID_NAME_CHARACTERS.test(name)) return { error: `mkdir: cannot create directory '${name}': Invalid character` };
    if (this.currentDirectory.contents.has(name)) return { error: `mkdir: cannot create directory '${name}': File exists` };
    addDirectory(this.currentDirectory, name);
    return null;
  }

  private touch(name: string): Result {
    if (INVALID_NAME_CHARACTERS.test(name)) return { error: `touch: cannot touch '${name}': Invalid character` };
    if (this.currentDirectory.contents.has(name)) return { error: `touch: cannot touch '${name}': File exists` };
    addFile(this.currentDirectory, name);
    return null;
  }

  private echo(content: string, fileName: string | undefined): Result {
    if (fileName === undefined) return { terminal_output: content };
    if (INVALID_NAME_CHARACTERS.test(fileName)) return { error: `echo: cannot write to '${fileName}': Invalid character` };
    if (fileName === "") return { terminal_output: content };
    const item = this.currentDirectory.contents.get(fileName);
    if (item === undefined) return { error: `echo: cannot write to '${fileName}': No such file` };
    if (item.kind === "directory") throw new ApiExecutionError("'Directory' object has no attribute '_write'");
    item.content = content;
    return null;
  }

  private cat(name: string): Result {
    if (INVALID_NAME_CHARACTERS.test(name)) return { error: `cat: '${name}': Invalid character` };
    const item = this.currentDirectory.contents.get(name);
    if (item === undefined) return { error: `cat: '${name}': No such file or directory` };
    if (item.kind === "directory") return { error: `cat: '${name}': Is a directory` };
    return { file_content: item.content };
  }

  private find(path: string, name: string | undefined): Result {
    const target = this.navigate(path);
    if (!("kind" in target)) {
      const message = typeof target.error === "string" ? target.error : "";
      return message.startsWith("cd:") ? { error: message.replace("cd:", "find:") } : target;
    }
    const matches: string[] = [];
    const search = (directory: DirectoryNode, basePath: string): void => {
      for (const [itemName, item] of directory.contents) {
        const itemPath = `${basePath}/${itemName}`;
        if (name === undefined || itemName.includes(name)) matches.push(itemPath);
        if (item.kind === "directory") search(item, itemPath);
      }
    };
    search(target, path.replace(/\/+$/, ""));
    return { matches };
  }

  private readFile(name: string): FileNode | undefined {
    const item = this.currentDirectory.contents.get(name);
    return item?.kind === "file" ? item : undefined;
  }

  private wc(name: string, mode: string): Result {
    if (!["l", "w", "c"].includes(mode)) return { error: `wc: invalid mode '${mode}'` };
    const file = this.readFile(name);
    if (file === undefined) return { error: `wc: ${name}: No such file or directory` };
    if (mode === "l") return { count: splitLines(file.content).length, type: "lines" };
    if (mode === "w") return { count: file.content.split(/\s+/).filter((word) => word !== "").length, type: "words" };
    return { count: [...file.content].length, type: "characters" };
  }

  private sort(name: string): Result {
    const file = this.readFile(name);
    if (file === undefined) return { error: `sort: ${name}: No such file or directory` };
    return { sorted_content: splitLines(file.content).sort(compareCodePoints).join("\n") };
  }

  private grep(name: string, pattern: string): Result {
    const file = this.readFile(name);
    if (file === undefined) return { error: `grep: ${name}: No such file or directory` };
    return { matching_lines: splitLines(file.content).filter((line) => line.includes(pattern)) };
  }

  private du(humanReadable: boolean): Result {
    const size = (node: Node): number =>
      node.kind === "file" ? Buffer.byteLength(node.content, "utf8") : [...node.contents.values()].reduce((sum, child) => sum + size(child), 0);
    let total = size(this.currentDirectory);
    if (!humanReadable) return { disk_usage: `${total} bytes` };
    for (const unit of ["B", "KB", "MB", "GB", "TB"]) {
      if (total < 1024) return { disk_usage: `${total.toFixed(2)} ${unit}` };
      total /= 1024;
    }
    return { disk_usage: `${total.toFixed(2)} PB` };
  }

  private tail(name: string, requestedLines: number): Result {
    const file = this.readFile(name);
    if (file === undefined) return { error: `tail: ${name}: No such file or directory` };
    const lines = splitLines(file.content);
    const count = Math.min(Math.trunc(requestedLines), lines.length);
    // Python's list[-0:] is the whole list, and list[-(-k):] drops the first k.
    const last = count === 0 ? lines : count > 0 ? lines.slice(-count) : lines.slice(-count);
    return { last_lines: last.join("\n") };
  }

  private diff(first: string, second: string): Result {
    const a = this.readFile(first);
    const b = this.readFile(second);
    if (a === undefined || b === undefined) return { error: `diff: ${first} or ${second}: No such file or directory` };
    const left = splitLines(a.content);
    const right = splitLines(b.content);
    const lines: string[] = [];
    for (let index = 0; index < Math.min(left.length, right.length); index++) {
      if (left[index] !== right[index]) lines.push(`- ${left[index]!}\n+ ${right[index]!}`);
    }
    return { diff_lines: lines.join("\n") };
  }

  private move(source: string, destination: string): Result {
    const directory = this.currentDirectory;
    const item = directory.contents.get(source);
    if (item === undefined) return { error: `mv: cannot move '${source}': No such file or directory` };
    if (destination.includes("/")) return { error: "mv: path not allowed in destination. Provide only a file or directory name." };
    const target = directory.contents.get(destination);
    if (target !== undefined) {
      if (target.kind !== "directory") return { error: `mv: cannot move '${source}' to '${destination}': Not a directory` };
      if (target.contents.has(source)) return { error: `mv: cannot move '${source}' to '${destination}/${source}': File exists` };
      directory.contents.delete(source);
      this.placeCopy(target, source, item, false);
      return { result: `'${source}' moved to '${destination}/${source}'` };
    }
    directory.contents.delete(source);
    this.placeCopy(directory, destination, item, false);
    return { result: `'${source}' moved to '${destination}'` };
  }

  private copy(source: string, destination: string): Result {
    const directory = this.currentDirectory;
    const item = directory.contents.get(source);
    if (item === undefined) return { error: `cp: cannot copy '${source}': No such file or directory` };
    if (destination.includes("/")) return { error: "cp: path not allowed in destination. Provide only a file or directory name." };
    const target = directory.contents.get(destination);
    if (target !== undefined) {
      if (target.kind !== "directory") return { error: `cp: cannot copy '${source}' to '${destination}': Not a directory` };
      // The reference looks for "destination/source" among the target's names, which never matches; adding then fails on a clash.
      this.placeCopy(target, source, item, true);
      return { result: `'${source}' copied to '${destination}/${source}'` };
    }
    this.placeCopy(directory, destination, item, true);
    return { result: `'${source}' copied to '${destination}'` };
  }

  /** Recreates an item under a new name; a directory keeps (a move) or shallow-copies (a copy) its entries, as the reference does. */
  private placeCopy(parent: DirectoryNode, name: string, item: Node, shallowCopy: boolean): void {
    if (item.kind === "file") {
      addFile(parent, name, item.content);
      return;
    }
    const created = addDirectory(parent, name);
    created.contents = shallowCopy ? new Map(item.contents) : item.contents;
  }

  private remove(name: string): Result {
    if (!this.currentDirectory.contents.has(name)) return { error: `rm: cannot remove '${name}': No such file or directory` };
    this.currentDirectory.contents.delete(name);
    return { result: `'${name}' removed` };
  }

  private removeDirectory(name: string): Result {
    const item = this.currentDirectory.contents.get(name);
    if (item === undefined) return { error: `rmdir: cannot remove '${name}': No such file or directory` };
    if (item.kind !== "directory") return { error: `rmdir: cannot remove '${name}': Not a directory` };
    if (item.contents.size > 0) return { error: `rmdir: cannot remove '${name}': Directory not empty` };
    this.currentDirectory.contents.delete(name);
    return { result: `'${name}' removed` };
  }

  private navigate(path: string): DirectoryNode | { error: string } {
    if (path === ".") return this.currentDirectory;
    if (path === "/") return this.root;
    let directory = path.startsWith("/") ? this.root : this.currentDirectory;
    for (const name of path.replace(/^\/+|\/+$/g, "").split("/")) {
      const next = itemIn(directory, name);
      if (next?.kind !== "directory") return { error: `cd: '${path}': No such file or directory` };
      directory = next;
    }
    return directory;
  }
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

