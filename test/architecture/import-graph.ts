import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The layers of `src/` and what each may import (ARCHITECTURE.md at the top
 * of the repository). A module is in the first layer whose `paths` prefix its
 * path; an import is allowed when its target's layer is the module's own or
 * one the module's layer lists.
 */
export interface Layer {
  name: string;
  /** Paths relative to the repository root: a folder ends with "/", a file is named whole. */
  paths: readonly string[];
  mayImport: readonly string[];
  /** Layers this one may import only with `import type` (it needs their shapes, never their code). */
  typesOnly?: readonly string[];
  /** Modules of allowed layers this one must not reach into, with the reason. */
  forbidden?: readonly { path: string; reason: string }[];
}

const AGENT_INTERNALS = [
  "argument-pruning",
  "call-execution",
  "call-planning",
  "compaction",
  "default-gate",
  "event-channel",
  "execution",
  "final-answer",
  "model-turn",
  "repeated-calls",
  "resolution",
  "resumption",
  "run-state",
  "session-store",
  "system-prompt",
  "tool-result-format",
  "turn-preparation",
  "abstention",
].map((name) => ({ path: `src/agent/${name}.ts`, reason: "an internal of the agent: use the Agent's options or the runtime" }));

export const LAYERS: readonly Layer[] = [
  { name: "shared", paths: ["src/errors.ts", "src/config.ts", "src/version.ts", "src/clock.ts"], mayImport: [] },
  { name: "model", paths: ["src/model/"], mayImport: ["shared"] },
  { name: "store", paths: ["src/store/"], mayImport: ["shared"] },
  { name: "tools", paths: ["src/tools/"], mayImport: ["shared", "model", "store"], typesOnly: ["model", "store"] },
  { name: "policy", paths: ["src/policy/"], mayImport: ["shared", "model", "tools", "store"], typesOnly: ["model"] },
  { name: "agent", paths: ["src/agent/"], mayImport: ["shared", "model", "tools", "policy", "store"] },
  { name: "apps", paths: ["src/apps/"], mayImport: ["shared", "tools", "store"] },
  // botpsy/testing: the scripted model, and fixtures such as a demo profile on a fixed clock.
  { name: "testing", paths: ["src/testing/"], mayImport: ["shared", "model", "tools", "store", "apps"] },
  { name: "runtime", paths: ["src/runtime.ts"], mayImport: ["shared", "model", "store", "tools", "policy", "agent", "apps"] },
  {
    name: "eval",
    paths: ["src/eval/", "src/tune/"],
    mayImport: ["shared", "model", "store", "tools", "policy", "agent", "apps", "testing", "runtime"],
    forbidden: AGENT_INTERNALS,
  },
  {
    name: "shells",
    paths: ["src/cli/", "src/server/", "src/peer/", "src/index.ts"],
    mayImport: ["shared", "model", "store", "tools", "policy", "agent", "apps", "testing", "runtime", "eval"],
  },
  // The web app runs in the browser and knows the server only through HTTP: it imports nothing of src/.
  { name: "web", paths: ["src/web/"], mayImport: [] },
];

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

export interface LayerViolation extends ImportEdge {
  problem: string;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The relative imports of one module's source, resolved to repository paths (`.js` written, `.ts` meant). */
export function importsOf(path: string, source: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    if (!specifier.startsWith(".")) return;
    const target = relative(process.cwd(), resolve(dirname(resolve(path)), specifier)).replace(/\\/g, "/").replace(/\.js$/, ".ts");
    edges.push({ from: path, to: target, typeOnly });
  };
  for (const match of source.matchAll(IMPORT)) add(match[3]!, match[2] !== undefined);
  for (const match of source.matchAll(DYNAMIC_IMPORT)) add(match[1]!, false);
  return edges;
}

export function layerOf(path: string): Layer | undefined {
  return LAYERS.find((layer) => layer.paths.some((prefix) => (prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix)));
}

/** Every import that points up the table, reaches into an internal, or leaves `src/` by a relative path. */
export function layerViolations(modules: ReadonlyMap<string, string>): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const [path, source] of modules) {
    const layer = layerOf(path);
    if (!layer) {
      violations.push({ from: path, to: path, typeOnly: false, problem: "is in no layer: add its folder to the layer table" });
      continue;
    }
    for (const edge of importsOf(path, source)) {
      const target = layerOf(edge.to);
      if (!target) {
        violations.push({ ...edge, problem: "imports a module in no layer" });
        continue;
      }
      const forbidden = layer.forbidden?.find((item) => item.path === edge.to);
      if (forbidden) violations.push({ ...edge, problem: `${layer.name} imports ${edge.to}, ${forbidden.reason}` });
      if (target.name === layer.name) continue;
      if (!layer.mayImport.includes(target.name)) violations.push({ ...edge, problem: `${layer.name} may not import ${target.name}` });
      else if (layer.typesOnly?.includes(target.name) && !edge.typeOnly && !isTypeOnlyImport(source, edge.to, path)) {
        violations.push({ ...edge, problem: `${layer.name} may import only types of ${target.name}` });
      }
    }
  }
  return violations;
}

/** `import { type A, type B } from …` is type-only too, though not written `import type`. */
function isTypeOnlyImport(source: string, target: string, from: string): boolean {
  for (const match of source.matchAll(/(?:^|\n)\s*import\s+\{([^}]*)\}\s+from\s+["']([^"']+)["']/g)) {
    const resolved = relative(process.cwd(), resolve(dirname(resolve(from)), match[2]!)).replace(/\\/g, "/").replace(/\.js$/, ".ts");
    if (resolved !== target) continue;
    const names = match[1]!.split(",").map((name) => name.trim()).filter((name) => name !== "");
    if (!names.every((name) => name.startsWith("type "))) return false;
  }
  return true;
}

/** The TypeScript modules under `directory`, by repository path. */
export function readModules(directory = "src"): Map<string, string> {
  const modules = new Map<string, string>();
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".ts") || entry.name.endsWith(".tsx")) modules.set(path.replace(/\\/g, "/"), readFileSync(path, "utf8"));
    }
  };
  visit(directory);
  return modules;
}
