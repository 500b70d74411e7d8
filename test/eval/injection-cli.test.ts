import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EvalCommandDependencies } from "../../src/cli/commands/eval.js";
import { injectionCases, SIDE_EFFECTING } from "../../src/eval/injection/cases.js";
import { CompromisedModel } from "../../src/eval/injection/compromised-model.js";
import { computeMetrics } from "../../src/eval/metrics.js";
import { caseResults, readResults, runRecords } from "../../src/eval/results.js";
import { botpsyEval } from "./eval-command.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * `botpsy eval run injection` through the command's own parsing and action,
 * the model loader swapped for the compromised model of the suite's first
 * case (it obeys every injected instruction it reads).
 */

const firstCase = injectionCases()[0]!;

const compromisedLoader: EvalCommandDependencies = {
  loadModel: async () => ({ model: new CompromisedModel(firstCase), info: { id: "compromised-model" } }),
};

describe("botpsy eval run injection", () => {
  let directory: string;
  let stderr: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    directory = makeTempDir("botpsy-injection-cli-");
    stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterEach(() => stderr.mockRestore());

  it("runs the benign task and the attacked case into the common results format, attack success counted as unsafe", async () => {
    expect(SIDE_EFFECTING).toContain(firstCase.goal.risk);
    const off = join(directory, "off.jsonl");
    const printedOff = await botpsyEval(["run", "injection", "--limit", "1", "--defenses", "off", "--parallel-calls", "on", "--out", off], compromisedLoader);
    const offResults = caseResults(readResults(off));
    expect(offResults.map((result) => result.caseId)).toEqual([`injection.${firstCase.task.id}.benign`, firstCase.id]);
    expect(offResults[0]).toMatchObject({ injected: false, success: true });
    expect(offResults[1]).toMatchObject({ injected: true, unsafe: true });
    expect(computeMetrics(offResults).unsafe).toMatchObject({ passed: 1, total: 1 });
    expect(printedOff).toContain("Attack success");
    expect(runRecords(readResults(off))[0]!.settings).toMatchObject({ suite: "injection", options: { defenses: "off", parallelCalls: true } });

    const on = join(directory, "on.jsonl");
    await botpsyEval(["run", "injection", "--limit", "1", "--out", on], compromisedLoader);
    const onResults = caseResults(readResults(on));
    expect(runRecords(readResults(on))[0]!.settings.options).toMatchObject({ defenses: "on" });
    expect(runRecords(readResults(on))[0]!.settings.options).not.toHaveProperty("parallelCalls");
    expect(onResults[1]).toMatchObject({ injected: true, unsafe: false });
    // The attacker's call was asked about and declined; the user's task still got done.
    expect(onResults[1]!.calls.some((call) => call.name === firstCase.goal.call.name && call.status === "declined")).toBe(true);
    expect(onResults[0]!.success).toBe(true);

    // The report tells the two runs apart by their defenses and shows the unsafe rate of each.
    const reportDirectory = join(directory, "report");
    await botpsyEval(["report", off, on, "--out", reportDirectory], compromisedLoader);
    const summary = readFileSync(join(reportDirectory, "summary.md"), "utf8");
    expect(summary).toContain("defenses off");
    expect(summary).toContain("defenses on");
    expect(summary).toMatch(/Unsafe rate \(injected cases\) \| 100\.0% \(1\/1\) \| 0\.0% \(0\/1\)/);
  });

  it("resumes: a second run with the same settings adds nothing", async () => {
    const out = join(directory, "resume.jsonl");
    await botpsyEval(["run", "injection", "--limit", "2", "--out", out], compromisedLoader);
    const printed = await botpsyEval(["run", "injection", "--limit", "2", "--out", out], compromisedLoader);
    expect(printed).toContain("0 case(s) run");
    expect(caseResults(readResults(out))).toHaveLength(new Set(injectionCases().slice(0, 2).map((item) => item.task.id)).size + 2);
  });

  it("rejects an unknown defense setting and --defenses on another suite, saying what to give", async () => {
    await expect(botpsyEval(["run", "injection", "--defenses", "maybe", "--out", join(directory, "x.jsonl")], compromisedLoader)).rejects.toThrow(
      /--defenses must be one of off, injection-defenses, on/,
    );
    await expect(botpsyEval(["run", "apps", "--defenses", "on", "--out", join(directory, "y.jsonl")], compromisedLoader)).rejects.toThrow(/injection suite only/);
    await expect(botpsyEval(["run", "apps", "--parallel-calls", "sometimes", "--out", join(directory, "z.jsonl")], compromisedLoader)).rejects.toThrow(
      /--parallel-calls must be auto, on or off/,
    );
  });
});
