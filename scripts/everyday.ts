/**
 * Thirty everyday requests through the CLI, each on a fresh demo profile with a
 * fixed clock (Tuesday 2026-12-01 09:00, Europe/Lisbon), and for each: what the
 * CLI reported (its stop reason or outcome, and its exit code) against what
 * actually happened in the apps (the app state before and after, or the facts
 * a question's answer must contain).
 *
 * Run after `npm run build`:
 *   npx tsx scripts/everyday.ts --label before [--only 1,5] [--max-steps 2] [--timeout 25] [--cli path/to/main.js]
 *   npx tsx scripts/everyday.ts --table before,after     (the passes side by side; "before+retry" overlays a retry pass, marked *)
 * It needs the test model at .botpsy-test/models/ (hard-linked into each
 * scratch home, so nothing is downloaded) and writes results/everyday/<label>.json.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Profile } from "../src/apps/profile.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// `--cli <path>` runs another build (a copy of dist/ kept from before a change).
const cliOption = process.argv.indexOf("--cli");
const cli = cliOption >= 0 && process.argv[cliOption + 1] !== undefined ? process.argv[cliOption + 1]! : join(root, "dist", "src", "cli", "main.js");
const modelFile = "SmolLM2-135M-Instruct.Q4_1.gguf";
const clock = "2026-12-01T09:00:00Z";
const timeZone = "Europe/Lisbon";

type Views = Record<string, string>;

interface EverydayRequest {
  request: string;
  /** The apps whose state decides whether the request was served. */
  apps: string[];
  /** True when what happened serves the request. */
  served(check: { before: Views; after: Views; answer: string }): boolean;
}

/** Matches of `pattern` in the app's state after the run, more than before it: something of that shape was added. */
function added(app: string, pattern: RegExp): (check: { before: Views; after: Views }) => boolean {
  const count = (text: string | undefined): number => (text ?? "").match(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`))?.length ?? 0;
  return ({ before, after }) => count(after[app]) > count(before[app]);
}

function answerSays(pattern: RegExp): (check: { answer: string }) => boolean {
  return ({ answer }) => pattern.test(answer);
}

export const EVERYDAY_REQUESTS: EverydayRequest[] = [
  { request: "Set an alarm for 7 am tomorrow", apps: ["alarms"], served: added("alarms", /"time": "07:00"/) },
  { request: "Add buy milk to my tasks", apps: ["tasks"], served: added("tasks", /"title": "[^"]*milk[^"]*"/i) },
  { request: "Remind me to call the dentist by Friday", apps: ["tasks"], served: added("tasks", /dentist[^}]*"due": "2026-12-04"/i) },
  { request: "What's on my calendar tomorrow?", apps: ["calendar"], served: answerSays(/Lena/i) },
  { request: "What's the weather in Lisbon on Friday?", apps: [], served: answerSays(/rain/i) },
  { request: "Create a file called groceries.txt with eggs, bread and milk", apps: ["files"], served: added("files", /"name": "groceries\.txt"/) },
  { request: "Turn on do not disturb", apps: ["settings"], served: ({ after }) => /"doNotDisturb": true/.test(after.settings ?? "") },
  { request: "Start a 10 minute timer", apps: ["timers"], served: added("timers", /"id"/) },
  { request: "What is 2+2?", apps: [], served: answerSays(/\b4\b|four/i) },
  { request: "Send Maria a message saying I'll be 10 minutes late", apps: ["messages"], served: added("messages", /"direction": "out"[^}]*late/i) },
  { request: "Email Frank that the Q4 numbers are ready", apps: ["email"], served: ({ before, after }) => sentCount(after) > sentCount(before) && /frank/i.test(after.email ?? "") },
  { request: "Play the Running playlist", apps: ["music"], served: ({ after }) => /"state": "playing"[\s\S]*"source": "playlist Running"/.test(after.music ?? "") },
  { request: "Set the volume to 30", apps: ["settings", "music"], served: ({ after }) => /"volume": 30\b/.test(`${after.settings}${after.music}`) },
  { request: "Schedule lunch with Priya on Friday at 1 pm", apps: ["calendar"], served: added("calendar", /"date": "2026-12-04",\s*"time": "13:00"/) },
  { request: "What's Lena's phone number?", apps: [], served: answerSays(/912\s?000\s?110/) },
  { request: "Do I have any unread emails?", apps: [], served: answerSays(/Frank|Priya|Omar|Ana|\b4\b|four/i) },
  { request: "Mark the task about flights as done", apps: ["tasks"], served: ({ after }) => /"title": "Book flights[^}]*"status": "done"/.test(after.tasks ?? "") },
  { request: "Add Jules's birthday dinner on Saturday at 8 pm to my calendar", apps: ["calendar"], served: added("calendar", /"date": "2026-12-05",\s*"time": "20:00"/) },
  { request: "Turn off wifi", apps: ["settings"], served: ({ after }) => /"wifi": false/.test(after.settings ?? "") },
  { request: "What's the weather in Lisbon today?", apps: [], served: answerSays(/shower|rain|18/i) },
  { request: "Create a to-do list called Groceries", apps: ["tasks"], served: added("tasks", /"list": "Groceries"/) },
  { request: "Delete the Gym alarm", apps: ["alarms"], served: ({ after }) => !/"label": "Gym"/.test(after.alarms ?? "") },
  { request: "Move my 1:1 with Priya to 3 pm", apps: ["calendar"], served: added("calendar", /"title": "1:1 with Priya",\s*"date": "[^"]+",\s*"time": "15:00"/) },
  { request: "Write a note called Packing list with passport and charger", apps: ["docs"], served: added("docs", /"title": "Packing list"/i) },
  { request: "How many songs are in my library?", apps: [], served: answerSays(/\b60\b|sixty/i) },
  { request: "Turn on airplane mode", apps: ["settings"], served: ({ after }) => /"airplaneMode": true/.test(after.settings ?? "") },
  { request: "Set an alarm in 2 hours", apps: ["alarms"], served: added("alarms", /"time": "11:00"/) },
  { request: "Add Sofia Costa to my contacts with number +351 912 000 200", apps: ["contacts"], served: added("contacts", /Sofia Costa/) },
  { request: "What's on my to-do list?", apps: [], served: answerSays(/flights|birthday present|landlord/i) },
  { request: "Reply to Maria's email saying Thursday works", apps: ["email"], served: ({ before, after }) => sentCount(after) > sentCount(before) },
];

function sentCount(views: Views): number {
  return Number(/"sent": (\d+)/.exec(views.email ?? "")?.[1] ?? 0);
}

interface Row {
  index: number;
  request: string;
  exitCode: number | null;
  reported: string;
  served: boolean;
  calls: string[];
  answer: string;
  seconds: number;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function runCli(home: string, args: string[], timeoutSeconds: number): { status: number | null; stdout: string } {
  const result = spawnSync(process.execPath, [cli, ...args], {
    env: { ...process.env, BOTPSY_HOME: home, BOTPSY_PROFILE: "default" },
    encoding: "utf8",
    timeout: timeoutSeconds * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout };
}

/** The apps' state as `botpsy apps show <app> --json` prints it. */
function snapshot(home: string, apps: string[]): Views {
  const profile = Profile.open({ home, name: "default" });
  try {
    const views: Views = {};
    for (const name of new Set([...apps, "email"])) {
      const app = profile.app(name);
      views[name] = JSON.stringify(profile.store.read((tx) => app.view(tx, profile.environment)).data, null, 2);
    }
    return views;
  } finally {
    profile.close();
  }
}

/** `--table before,after`: the two passes side by side, as a Markdown table. */
function printTable(labels: string[]): void {
  // "before+before-retry": the rows of a retry pass (the timed-out requests run again) replace the first pass's.
  const read = (label: string): Row[] => (JSON.parse(readFileSync(join(root, "results", "everyday", `${label}.json`), "utf8")) as { rows: Row[] }).rows;
  const passes = labels.map((label) => {
    const [first, ...retries] = label.split("+");
    const rows = read(first!);
    for (const retry of retries) for (const row of read(retry)) rows[rows.findIndex((candidate) => candidate.index === row.index)] = { ...row, reported: `${row.reported}*` };
    return { rows };
  });
  const header = ["#", "request", ...labels.flatMap((label) => [`${label}: CLI said (exit)`, `${label}: apps`])];
  process.stdout.write(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|\n`);
  for (const [offset, entry] of EVERYDAY_REQUESTS.entries()) {
    const cells = passes.flatMap((pass) => {
      const row = pass.rows.find((candidate) => candidate.index === offset + 1);
      if (row === undefined) return ["-", "-"];
      return [`${row.reported} (${row.exitCode ?? "killed"})`, row.served ? "served" : "not served"];
    });
    process.stdout.write(`| ${offset + 1} | ${entry.request} | ${cells.join(" | ")} |\n`);
  }
}

function main(): void {
  const table = option("table");
  if (table !== undefined) {
    printTable(table.split(","));
    return;
  }
  const label = option("label") ?? "run";
  const maxSteps = option("max-steps") ?? "2";
  const timeoutSeconds = Number(option("timeout") ?? "25");
  const only = option("only")?.split(",").map(Number);
  const scratch = join(root, ".scratch", "everyday");
  const source = join(root, ".botpsy-test", "models", modelFile);
  if (!existsSync(source)) throw new Error(`The test model is missing: ${source}`);
  const rows: Row[] = [];
  const started = Date.now();
  for (const [offset, entry] of EVERYDAY_REQUESTS.entries()) {
    const index = offset + 1;
    if (only && !only.includes(index)) continue;
    const home = join(scratch, `${label}-${index}`);
    rmSync(home, { recursive: true, force: true });
    mkdirSync(join(home, "models"), { recursive: true });
    try {
      linkSync(source, join(home, "models", modelFile));
    } catch {
      copyFileSync(source, join(home, "models", modelFile));
    }
    Profile.open({ home, name: "default", seed: "demo", clock, timeZone }).close();
    const before = snapshot(home, entry.apps);
    const runStarted = Date.now();
    const run = runCli(home, ["run", entry.request, "--yes", "--json", "--threads", "1", "--max-steps", maxSteps], timeoutSeconds);
    const seconds = (Date.now() - runStarted) / 1000;
    const after = snapshot(home, entry.apps);
    let outcome: { stopReason?: string; outcome?: string; answer?: string; calls?: { call: { name: string }; status: string }[] } = {};
    try {
      outcome = JSON.parse(run.stdout) as typeof outcome;
    } catch {
      outcome = {};
    }
    const answer = outcome.answer ?? "";
    const row: Row = {
      index,
      request: entry.request,
      exitCode: run.status,
      reported: run.status === null ? "timed out" : (outcome.outcome ?? outcome.stopReason ?? "no JSON"),
      served: entry.served({ before, after, answer }),
      calls: (outcome.calls ?? []).map((call) => `${call.call.name}:${call.status}`),
      answer: answer.length > 160 ? `${answer.slice(0, 160)}…` : answer,
      seconds,
    };
    rows.push(row);
    process.stdout.write(`${index}\t${row.exitCode}\t${row.reported}\t${row.served ? "served" : "not served"}\t${row.calls.join(" ")}\t${seconds.toFixed(1)}s\t${JSON.stringify(row.answer)}\n`);
    rmSync(home, { recursive: true, force: true });
  }
  const directory = join(root, "results", "everyday");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, `${label}.json`), `${JSON.stringify({ label, clock, timeZone, maxSteps, rows, seconds: (Date.now() - started) / 1000 }, null, 2)}\n`);
  process.stdout.write(`total ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

main();
