/**
 * Date grounding measured on recorded results of the apps suite: for every
 * call the model made, whether `groundCallDates` would leave it, correct it
 * (and whether the corrected value is the one the scenario expects), or send
 * it back to the model. Broken down by app for calendar, tasks, weather and
 * alarms (the tools whose arguments carry days and times).
 *
 * Run: npx tsx scripts/date-grounding.ts results/2026-11-30/apps.jsonl
 */
import { readFileSync } from "node:fs";
import { groundCallDates } from "../src/agent/date-grounding.js";
import { resolveScenarioSuite } from "../src/eval/suites.js";

const file = process.argv[2];
if (file === undefined) throw new Error("Give a results file of the apps suite, e.g. results/2026-11-30/apps.jsonl");
const scenarios = new Map(resolveScenarioSuite("apps").scenarios.map((scenario) => [scenario.id, scenario]));
const APPS: Record<string, RegExp> = {
  calendar: /event|free_slot/,
  tasks: /task/,
  weather: /weather/,
  alarms: /alarm/,
};
const rows = new Map<string, { calls: number; corrected: number; correctedToExpected: number; sentBack: number }>();
const examples: string[] = [];
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (line.trim() === "") continue;
  const recorded = JSON.parse(line) as { type: string; caseId: string; calls?: { name: string; arguments: Record<string, unknown> }[] };
  if (recorded.type !== "case") continue;
  const scenario = scenarios.get(recorded.caseId);
  if (scenario === undefined) continue;
  const request = scenario.turns[0]?.user ?? "";
  const clock = { now: new Date(scenario.setup.clock), timeZone: scenario.setup.timeZone };
  for (const call of recorded.calls ?? []) {
    const app = Object.entries(APPS).find(([, pattern]) => pattern.test(call.name))?.[0];
    if (app === undefined) continue;
    const row = rows.get(app) ?? { calls: 0, corrected: 0, correctedToExpected: 0, sentBack: 0 };
    row.calls++;
    const grounding = groundCallDates({ id: "c", name: call.name, arguments: call.arguments }, request, clock);
    if (grounding.kind === "corrected") {
      row.corrected++;
      const expected = JSON.stringify(scenario.expect.calls ?? []);
      const values = Object.values(grounding.call.arguments as Record<string, unknown>).map(String);
      if (values.some((value) => expected.includes(value.split(" ")[0]!))) row.correctedToExpected++;
      if (examples.length < 8) examples.push(`${recorded.caseId}: ${grounding.corrections.join("; ")}`);
    }
    if (grounding.kind === "contradiction") {
      row.sentBack++;
      if (examples.length < 12) examples.push(`${recorded.caseId} (sent back): ${grounding.error.message}`);
    }
    rows.set(app, row);
  }
}
process.stdout.write("app       calls  corrected  (to a value the scenario expects)  sent back\n");
for (const [app, row] of rows) {
  process.stdout.write(`${app.padEnd(9)} ${String(row.calls).padStart(5)}  ${String(row.corrected).padStart(9)}  ${String(row.correctedToExpected).padStart(33)}  ${String(row.sentBack).padStart(9)}\n`);
}
for (const example of examples) process.stdout.write(`  ${example}\n`);
