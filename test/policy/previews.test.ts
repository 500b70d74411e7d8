import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { builtInApps } from "../../src/apps/registry.js";
import { previewCall } from "../../src/policy/preview.js";
import { SIDE_EFFECTING_RISKS } from "../../src/policy/provenance.js";
import type { Tool } from "../../src/tools/tool.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * A preview for every side-effecting tool of every built-in app, on the
 * seeded demo profile, with arguments a careful model would give. A new
 * side-effecting tool without a case here fails the first test: add its
 * arguments (and the calls that put the profile in a state where it can run).
 */
interface PreviewCase {
  args: Record<string, unknown>;
  /** Calls run for real first, so that the previewed call can succeed. */
  prepare?: { tool: string; args: Record<string, unknown> }[];
  /** What the preview must say. */
  says: RegExp;
}

const CASES: Record<string, PreviewCase> = {
  set_wifi: { args: { on: false }, says: /wifi from on to off/ },
  set_bluetooth: { args: { on: false }, says: /bluetooth from on to off/ },
  set_mobile_data: { args: { on: false }, says: /mobileData from on to off/ },
  set_airplane_mode: { args: { on: true }, says: /airplaneMode from off to on/ },
  set_do_not_disturb: { args: { on: true }, says: /doNotDisturb from off to on/ },
  set_volume: { args: { level: 20 }, says: /volume from 60 to 20/ },
  set_brightness: { args: { level: 30 }, says: /brightness from 70 to 30/ },
  set_battery_saver: { args: { on: true }, says: /batterySaver from off to on/ },
  delete_alarm: { args: { alarm: "alarm-1" }, says: /Will delete 1 alarm: /i },
  delete_file: { args: { path: "notes/ideas.md" }, says: /ideas\.md/ },
  delete_event: { args: { event: "Team sync" }, says: /Will delete 1 event: Team sync/ },
  send_email: { args: { to: "frank.miller@example.com", subject: "Agenda", body: "See you at ten." }, says: /send to .*frank.*See you at ten/i },
  reply_email: { args: { email_id: "email-1", body: "I'll bring the numbers." }, says: /^Will send to frank\.miller@example\.com .*bring the numbers/ },
  forward_email: { args: { email_id: "email-1", to: "maria.lopez@example.com" }, says: /send to .*maria/i },
  send_draft: { args: { draft_id: "email-18" }, says: /send to .*Omar|omar\.haddad/i },
  empty_trash: { args: {}, says: /Will delete 1 message: 50% off everything!/ },
  share_document: { args: { document: "Q4 report", with: "Frank Miller", role: "viewer" }, says: /^Will send to Frank Miller/ },
  delete_document: { args: { document: "Gift ideas for Mom" }, says: /Will delete 1 document: Gift ideas for Mom/ },
  send_message: { args: { to: "Maria", text: "Running late" }, says: /send .*to Maria.*Running late/i },
  react_to_message: { args: { message_id: "msg-1", reaction: "like" }, says: /^Will react with like to the message “Can I borrow your bike/ },
  delete_message: { args: { message_id: "msg-1" }, says: /Will delete 1 message: / },
  sign_in: { args: {}, prepare: [{ tool: "sign_out", args: {} }], says: /signedIn from off to on/ },
  sign_out: { args: {}, says: /signedIn from on to off/ },
  share_photo: { args: { photo_id: "photo-1", contact: "Maria" }, says: /photo-1 to Maria/ },
  share_photo_album: { args: { album: "Porto weekend", contact: "Ana" }, says: /Porto weekend.* to Ana/ },
  delete_workout: { args: { workout_id: "workout-1" }, says: /Will delete 1 workout: / },
  transfer_money: { args: { amount: 40, to: "Ana" }, says: /Will charge 40\.00.* for Ana/ },
  pay_bill: { args: { bill: "bill-1" }, says: /Will charge 18\.50/ },
  book_flight: { args: { flight_id: "LIS-OPO-20261212-1" }, says: /Will charge \d+\.\d\d/ },
  book_hotel: { args: { hotel: "porto-ribeira-inn", check_in: "2026-12-12", nights: 2 }, says: /Will charge 158\.00/ },
  cancel_booking: { args: { booking_id: "booking-2" }, says: /booking/i },
  checkout: { args: {}, says: /Will charge 12\.97/ },
  delete_task: { args: { task: "task-1" }, says: /Will delete 1 task: Finish the Q4 report draft/ },
  add_fuel: { args: { gallons: 5 }, says: /fuelGallons from 10 to 15/ },
  lock_car_doors: { args: {}, says: /Will change/ },
  unlock_car_doors: { args: {}, prepare: [{ tool: "lock_car_doors", args: {} }], says: /Will change/ },
  press_brake_pedal: { args: {}, says: /brakePressed from off to on/ },
  release_brake_pedal: { args: {}, prepare: [{ tool: "press_brake_pedal", args: {} }], says: /brakePressed from on to off/ },
  start_engine: {
    args: {},
    prepare: [
      { tool: "press_brake_pedal", args: {} },
      { tool: "lock_car_doors", args: {} },
    ],
    says: /engine from "off" to "running"|engine/,
  },
  stop_engine: {
    args: {},
    prepare: [
      { tool: "press_brake_pedal", args: {} },
      { tool: "lock_car_doors", args: {} },
      { tool: "start_engine", args: {} },
    ],
    says: /engine/,
  },
  set_car_climate: { args: { temperature: 23, on: true }, says: /Will change/ },
};

const CLOCK = "2026-12-01T09:00:00Z";
let directory: string;

beforeAll(() => {
  directory = makeTempDir("botpsy-previews-");
});

function sideEffectingTools(): Tool[] {
  return builtInApps().flatMap((app) => app.tools.filter((tool) => SIDE_EFFECTING_RISKS.includes(tool.risk)).map((tool) => ({ ...tool, app: app.name })));
}

/** Everything a call could change: every record and every file of the profile. */
function snapshot(profile: Profile): string {
  const records = profile.store.db.prepare("SELECT app, collection, id, data FROM records ORDER BY app, collection, id").all();
  const files: string[] = [];
  const root = profile.environment.filesDirectory!;
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(`${path.slice(root.length)}:${readFileSync(path, "base64")}`);
    }
  };
  walk(root);
  return JSON.stringify({ records, files, actions: profile.store.history({ limit: 1000 }).length });
}

describe("previews of every side-effecting tool", () => {
  it("has a case for every side-effecting tool of every app", () => {
    const missing = sideEffectingTools()
      .map((tool) => tool.name)
      .filter((name) => !(name in CASES));
    expect(missing, `side-effecting tools without a preview case: ${missing.join(", ")}`).toEqual([]);
    const stale = Object.keys(CASES).filter((name) => !sideEffectingTools().some((tool) => tool.name === name));
    expect(stale, `preview cases of tools that are gone or no longer side-effecting: ${stale.join(", ")}`).toEqual([]);
  });

  for (const tool of sideEffectingTools()) {
    it(`${tool.app}/${tool.name} (${tool.risk}) says what it will do and changes nothing`, async () => {
      const testCase = CASES[tool.name];
      if (testCase === undefined) throw new Error(`No preview case for ${tool.name}: add one to CASES.`);
      const profile = Profile.open({ databasePath: join(directory, `${tool.name}.db`), home: directory, seed: "demo", clock: CLOCK, timeZone: "Europe/Lisbon" });
      try {
        const tools = new Map(profile.tools().map((candidate) => [candidate.name, candidate]));
        for (const step of testCase.prepare ?? []) await profile.runTool(tools.get(step.tool)!, step.args);
        const before = snapshot(profile);
        const preview = await previewCall({ store: profile.store, now: profile.environment.now, timeZone: profile.environment.timeZone }, tool, testCase.args);
        expect(preview.error, `the trial run of ${tool.name} failed: ${preview.text}`).toBeUndefined();
        expect(preview.text).toMatch(testCase.says);
        expect(preview.text).not.toMatch(/undefined|\[object Object\]/);
        expect(snapshot(profile)).toBe(before);
      } finally {
        profile.close();
      }
    });
  }
});
