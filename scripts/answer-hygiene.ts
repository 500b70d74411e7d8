/**
 * Answer hygiene and run outcomes measured on recorded results of the apps
 * suite: how often the final answer would be cut to the length limit or
 * replaced as unusable, whether any of those cases was a success (a correct
 * answer lost), and how the outcome model's "finished" agrees with the
 * suite's checkers.
 *
 * Run: npx tsx scripts/answer-hygiene.ts results/2026-11-30/apps.jsonl [--max 1500]
 */
import { readFileSync } from "node:fs";
import { assessAnswer, DEFAULT_MAX_ANSWER_CHARACTERS } from "../src/agent/answer-hygiene.js";
import { judgeRun } from "../src/agent/outcome.js";
import type { AgentOutcome, AgentStopReason } from "../src/agent/types.js";
import { Profile } from "../src/apps/profile.js";
import { resolveScenarioSuite } from "../src/eval/suites.js";

interface RecordedCase {
  type: string;
  caseId: string;
  success: boolean;
  answer: string;
  stopReason: AgentStopReason;
  modelTurns: number;
  calls: { name: string; arguments: Record<string, unknown>; status: "ok" | "error" | "declined" | "skipped"; errorCode?: string }[];
}

const file = process.argv[2];
if (file === undefined) throw new Error("Give a results file of the apps suite, e.g. results/2026-11-30/apps.jsonl");
const maxAt = process.argv.indexOf("--max");
const max = maxAt >= 0 ? Number(process.argv[maxAt + 1]) : DEFAULT_MAX_ANSWER_CHARACTERS;
const requests = new Map(resolveScenarioSuite("apps").scenarios.map((scenario) => [scenario.id, scenario.turns[0]?.user ?? ""]));
const profile = Profile.open({ databasePath: ":memory:", seed: "empty" });
const risks = new Map(profile.tools().map((tool) => [tool.name, tool.risk]));
profile.close();

const cases = readFileSync(file, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as RecordedCase)
  .filter((line) => line.type === "case");
const count = { cases: 0, cut: 0, cutSuccess: 0, unusable: 0, unusableSuccess: 0, finishedAndSuccess: 0, finishedNotSuccess: 0, notFinishedSuccess: 0, neither: 0 };
const problems = new Map<string, number>();
const lost: string[] = [];
for (const recorded of cases) {
  const request = requests.get(recorded.caseId);
  if (request === undefined) continue;
  count.cases++;
  const assessment = assessAnswer(recorded.answer, request, max);
  if (assessment.cut) {
    count.cut++;
    if (recorded.success) count.cutSuccess++;
  }
  if (!assessment.usable && recorded.answer.trim() !== "") {
    count.unusable++;
    problems.set(assessment.problem ?? "?", (problems.get(assessment.problem ?? "?") ?? 0) + 1);
    if (recorded.success) {
      count.unusableSuccess++;
      lost.push(`${recorded.caseId} (${assessment.problem}): ${JSON.stringify(recorded.answer.slice(0, 100))}`);
    }
  }
  const outcome: AgentOutcome = {
    runId: recorded.caseId,
    sessionId: "s",
    stopReason: recorded.stopReason,
    answer: recorded.answer,
    calls: recorded.calls.map((call, index) => ({
      call: { id: `call-${index}`, name: call.name, arguments: call.arguments },
      risk: risks.get(call.name) ?? (call.name === "find_tools" ? "read" : undefined),
      status: call.status,
      ...(call.errorCode !== undefined ? { error: { code: call.errorCode, message: call.errorCode } } : {}),
      durationMs: 0,
      step: 1,
    })),
    usage: { promptTokens: 0, cachedPromptTokens: 0, outputTokens: 0, reasoningTokens: 0 },
    steps: recorded.modelTurns,
    durationMs: 0,
    pendingApprovals: [],
  };
  const finished = judgeRun(outcome, request, { maxAnswerCharacters: max }).outcome === "finished";
  if (finished && recorded.success) count.finishedAndSuccess++;
  else if (finished) count.finishedNotSuccess++;
  else if (recorded.success) {
    count.notFinishedSuccess++;
    if (process.argv.includes("--verbose")) process.stdout.write(`  success, not finished: ${recorded.caseId}: ${judgeRun(outcome, request, { maxAnswerCharacters: max }).reason}\n`);
  }
  else count.neither++;
}
process.stdout.write(`cases ${count.cases}; answer limit ${max} characters\n`);
process.stdout.write(`cut to the limit: ${count.cut} (of them successes: ${count.cutSuccess})\n`);
process.stdout.write(`replaced as unusable: ${count.unusable} (${[...problems].map(([problem, n]) => `${problem} ${n}`).join(", ")}); of them successes: ${count.unusableSuccess}\n`);
for (const line of lost) process.stdout.write(`  success with unusable words: ${line}\n`);
process.stdout.write(
  `outcome "finished" vs checker success: both ${count.finishedAndSuccess}, finished only ${count.finishedNotSuccess}, success only ${count.notFinishedSuccess}, neither ${count.neither}\n`,
);
