import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * The layers of src/ (ARCHITECTURE.md): a folder may not import the folders
 * above it. test/architecture/layers.test.ts checks the same table on the
 * resolved import graph; this rule points at the line while editing.
 */
const upward = (files, folders, extra = []) => ({
  files,
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          ...folders.map((folder) => ({ group: [`**/${folder}/*`, `**/${folder}/**`], message: `An import from ${folder}/ points up the layer table (ARCHITECTURE.md).` })),
          ...extra,
        ],
      },
    ],
  },
});
const runtimeModule = { group: ["**/runtime.js"], message: "runtime.ts assembles the layers below it; nothing below imports it." };
const agentInternals = {
  group: [
    "**/agent/*",
    "!**/agent/agent.js",
    "!**/agent/types.js",
    "!**/agent/world.js",
  ],
  message: "An internal of the agent: use the Agent's public options, its types, or the runtime.",
};

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "data/", ".botpsy-test/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  upward(["src/model/**", "src/store/**"], ["tools", "policy", "agent", "apps", "eval", "cli", "server", "peer"], [runtimeModule]),
  upward(["src/tools/**"], ["policy", "agent", "apps", "eval", "cli", "server", "peer"], [runtimeModule]),
  upward(["src/policy/**"], ["agent", "apps", "eval", "cli", "server", "peer"], [runtimeModule]),
  upward(["src/agent/**"], ["apps", "eval", "cli", "server", "peer"], [runtimeModule]),
  upward(["src/apps/**"], ["model", "policy", "agent", "eval", "cli", "server", "peer"], [runtimeModule]),
  upward(["src/eval/**", "src/tune/**"], ["cli", "server", "peer"], [agentInternals]),
);
