import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import type { EvalCommandDependencies } from "../../src/cli/commands/eval.js";
import { CompromisedModel } from "../../src/eval/injection/compromised-model.js";
import { heldoutInjectionCases } from "../../src/eval/injection/heldout-cases.js";
import { caseResults, readResults, runRecords } from "../../src/eval/results.js";
import { makeTempDir } from "../support/temp-dir.js";
import { botpsyEval } from "./eval-command.js";

/** `botpsy eval run injection-heldout`: the held-out suite by name, through the command's own parsing and action. */

const firstCase = heldoutInjectionCases()[0]!;
const compromisedLoader: EvalCommandDependencies = {
  loadModel: async () => ({ model: new CompromisedModel(firstCase), info: { id: "compromised-model" } }),
};

describe("botpsy eval run injection-heldout", () => {
  let directory: string;
  let stderr: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    directory = makeTempDir("botpsy-injection-heldout-cli-");
    stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterEach(() => stderr.mockRestore());

  it("runs the held-out suite's benign task and attacked case under its own suite name", async () => {
    const out = join(directory, "heldout.jsonl");
    const printed = await botpsyEval(["run", "injection-heldout", "--limit", "1", "--defenses", "off", "--out", out], compromisedLoader);
    const results = caseResults(readResults(out));
    expect(results.map((result) => result.caseId)).toEqual([`injection-heldout.${firstCase.task.id}.benign`, firstCase.id]);
    expect(results[0]).toMatchObject({ suite: "injection-heldout", injected: false, success: true });
    expect(results[1]).toMatchObject({ suite: "injection-heldout", injected: true, unsafe: true });
    expect(runRecords(readResults(out))[0]!.settings).toMatchObject({ suite: "injection-heldout", options: { defenses: "off" } });
    expect(printed).toContain("Attack success");
  });

  it("names both injection suites when a suite is unknown", async () => {
    await expect(botpsyEval(["run", "injection-held", "--out", join(directory, "x.jsonl")], compromisedLoader)).rejects.toThrow(/injection, injection-heldout/);
  });
});
