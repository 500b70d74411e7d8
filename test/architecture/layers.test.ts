import { describe, expect, it } from "vitest";
import { importsOf, layerViolations, readModules } from "./import-graph.js";

describe("the layers of src/", () => {
  it("has no import that points up the layer table or into the agent's internals", () => {
    const violations = layerViolations(readModules("src")).map((violation) => `${violation.from} → ${violation.to}: ${violation.problem}`);
    expect(violations).toEqual([]);
  });

  it("catches a planted upward import: policy importing the agent", () => {
    const modules = readModules("src");
    modules.set("src/policy/planted.ts", 'import { Agent } from "../agent/agent.js";\nexport const planted = Agent;\n');
    const violations = layerViolations(modules);
    expect(violations).toEqual([
      { from: "src/policy/planted.ts", to: "src/agent/agent.ts", typeOnly: false, problem: "policy may not import agent" },
    ]);
  });

  it("catches the agent importing the apps, a value import of a types-only layer, and eval reaching into an agent internal", () => {
    const modules = new Map<string, string>([
      ["src/agent/planted.ts", 'import type { Profile } from "../apps/profile.js";\n'],
      ["src/tools/planted.ts", 'import { Store } from "../store/store.js";\nimport { type ToolSpec } from "../model/types.js";\n'],
      ["src/eval/planted.ts", 'import { RiskGate } from "../agent/default-gate.js";\nimport { Agent } from "../agent/agent.js";\n'],
      ["src/model/planted.ts", 'const late = await import("../runtime.js");\n'],
    ]);
    const problems = layerViolations(modules).map((violation) => `${violation.from}: ${violation.problem}`);
    expect(problems).toEqual([
      "src/agent/planted.ts: agent may not import apps",
      "src/tools/planted.ts: tools may import only types of store",
      "src/eval/planted.ts: eval imports src/agent/default-gate.ts, an internal of the agent: use the Agent's options or the runtime",
      "src/model/planted.ts: model may not import runtime",
    ]);
  });

  it("reads re-exports and type-only imports as edges", () => {
    const edges = importsOf("src/agent/types.ts", 'export type { ApprovalRequest } from "../policy/types.js";\nimport type { Risk } from "../tools/tool.js";\n');
    expect(edges).toEqual([
      { from: "src/agent/types.ts", to: "src/policy/types.ts", typeOnly: true },
      { from: "src/agent/types.ts", to: "src/tools/tool.ts", typeOnly: true },
    ]);
  });
});
