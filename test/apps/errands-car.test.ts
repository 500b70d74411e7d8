import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { carApp } from "../../src/apps/errands/car.js";
import { mapsApp } from "../../src/apps/errands/maps.js";
import { ToolError } from "../../src/tools/tool.js";
import { toolFinder } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const opened: Profile[] = [];
const directories: string[] = [];

function open(databasePath = ":memory:"): Profile {
  const profile = Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps: [carApp, mapsApp], home: tmpdir() });
  opened.push(profile);
  return profile;
}

const tool = toolFinder(carApp);

async function call(profile: Profile, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return (await profile.runTool(tool(name), args)).value as Record<string, unknown>;
}

async function failure(profile: Profile, name: string, args: Record<string, unknown> = {}): Promise<ToolError> {
  try {
    await profile.runTool(tool(name), args);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`${name} should have failed`);
}

afterEach(() => {
  for (const profile of opened.splice(0)) profile.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("car app", () => {
  it("declares a risk class for every tool", () => {
    const risks = Object.fromEntries(carApp.tools.map((candidate) => [candidate.name, candidate.risk]));
    expect(risks).toEqual({
      get_car_status: "read",
      check_fuel_level: "read",
      add_fuel: "settings",
      lock_car_doors: "settings",
      unlock_car_doors: "settings",
      press_brake_pedal: "settings",
      release_brake_pedal: "settings",
      start_engine: "settings",
      stop_engine: "settings",
      set_car_climate: "settings",
      check_tyre_pressure: "read",
      estimate_driving_range: "read",
    });
  });

  it("runs the brief's scenario: check fuel, fill to 50 (not 50 more), lock, brake, start", async () => {
    const profile = open();
    const fuel = await call(profile, "check_fuel_level");
    expect(fuel).toMatchObject({ fuel_gallons: 10, tank_capacity_gallons: 50, room_gallons: 40 });

    const overfill = await failure(profile, "add_fuel", { gallons: 50 });
    expect(overfill.code).toBe("tank_overfill");
    expect(overfill.message).toContain("only 40 fit");
    expect((await call(profile, "check_fuel_level")).fuel_gallons).toBe(10);

    expect(await call(profile, "add_fuel", { gallons: 40 })).toMatchObject({ fuel_gallons: 50 });
    expect(await call(profile, "lock_car_doors", { door: "all" })).toMatchObject({ doors: { all_locked: true } });
    expect(await call(profile, "press_brake_pedal")).toEqual({ brake_pressed: true });
    expect(await call(profile, "start_engine")).toMatchObject({ engine: "running", fuel_gallons: 50 });
    expect(await call(profile, "get_car_status")).toMatchObject({ engine: "running", fuel_gallons: 50, doors: { all_locked: true } });
  });

  it("refuses to start with unlocked doors or a released brake, saying what to do", async () => {
    const profile = open();
    const unlocked = await failure(profile, "start_engine");
    expect(unlocked.code).toBe("doors_unlocked");
    expect(unlocked.message).toContain("lock_car_doors");
    await call(profile, "lock_car_doors");
    const brake = await failure(profile, "start_engine");
    expect(brake.code).toBe("brake_not_pressed");
    expect(brake.message).toContain("press_brake_pedal");
    await call(profile, "press_brake_pedal");
    await call(profile, "release_brake_pedal");
    expect((await failure(profile, "start_engine")).code).toBe("brake_not_pressed");
    await call(profile, "press_brake_pedal");
    await call(profile, "start_engine");
    expect((await failure(profile, "start_engine")).code).toBe("engine_already_running");
    expect((await failure(profile, "add_fuel", { gallons: 1 })).code).toBe("engine_running");
    expect(await call(profile, "stop_engine")).toEqual({ engine: "off" });
    expect((await failure(profile, "stop_engine")).code).toBe("engine_not_running");
  });

  it("locks and unlocks single doors, accepting a loosely written door name", async () => {
    const profile = open();
    await call(profile, "lock_car_doors");
    const result = await call(profile, "unlock_car_doors", { door: "Rear Left" });
    expect(result).toMatchObject({ unlocked: ["rear_left"], doors: { all_locked: false, unlocked: ["rear_left"] } });
    await expect(profile.runTool(tool("lock_car_doors"), { door: "boot" })).rejects.toThrow();
  });

  it("rejects bad fuel amounts and refuses to start an empty car", async () => {
    const profile = open();
    await expect(profile.runTool(tool("add_fuel"), { gallons: -3 })).rejects.toThrow(/gallons/);
    expect(await call(profile, "add_fuel", { gallons: "5" })).toMatchObject({ fuel_gallons: 15 });
    await profile.store.action({ tool: "test_drain", args: {} }, (tx) => {
      tx.collection<Record<string, unknown>>("car", "state").update("car", (car) => ({ ...car, fuelGallons: 0 }));
    });
    await call(profile, "lock_car_doors");
    await call(profile, "press_brake_pedal");
    expect((await failure(profile, "start_engine")).code).toBe("out_of_fuel");
  });

  it("sets the climate in celsius or fahrenheit and refuses out-of-range values", async () => {
    const profile = open();
    expect(await call(profile, "set_car_climate", { temperature: 22, fan_speed: 3 })).toMatchObject({
      climate: { on: true, temperature_celsius: 22, fan_speed: 3 },
    });
    expect(await call(profile, "set_car_climate", { temperature: 68, unit: "Fahrenheit" })).toMatchObject({ climate: { temperature_celsius: 20 } });
    expect((await failure(profile, "set_car_climate", { temperature: 40 })).code).toBe("temperature_out_of_range");
    expect((await failure(profile, "set_car_climate", {})).code).toBe("invalid_argument");
    expect(await call(profile, "set_car_climate", { on: false })).toMatchObject({ climate: { on: false } });
  });

  it("reports the low tyre of the demo car", async () => {
    const profile = open();
    const result = await call(profile, "check_tyre_pressure");
    expect(result.low_tyres).toEqual(["rear_left"]);
    expect(String(result.advice)).toContain("35 psi");
  });

  it("estimates range from fuel and mpg, and whether a destination is in reach", async () => {
    const profile = open();
    expect(await call(profile, "estimate_driving_range")).toMatchObject({ fuel_gallons: 10, miles_per_gallon: 32, range_miles: 320 });
    const porto = await call(profile, "estimate_driving_range", { destination: "Porto" });
    expect(porto.enough_fuel).toBe(true);
    expect(Number(porto.distance_miles)).toBeGreaterThan(150);
    expect(Number(porto.distance_miles)).toBeLessThan(320);
    const madrid = await call(profile, "estimate_driving_range", { distance_miles: 400 });
    expect(madrid).toMatchObject({ enough_fuel: false, fuel_needed_gallons: 12.5 });
    expect((await failure(profile, "estimate_driving_range", { destination: "Atlantis" })).code).toBe("not_found");
  });

  it("fails clearly when no car is connected", async () => {
    const profile = Profile.open({ databasePath: ":memory:", seed: "empty", clock: CLOCK, timeZone: ZONE, apps: [carApp], home: tmpdir() });
    opened.push(profile);
    const error = await failure(profile, "get_car_status");
    expect(error.code).toBe("no_car");
  });

  it("keeps its state across a reopened database, and undo restores it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "botpsy-car-"));
    directories.push(directory);
    const path = join(directory, "profile.sqlite");
    const first = open(path);
    await call(first, "add_fuel", { gallons: 40 });
    await call(first, "lock_car_doors");
    first.close();
    const second = open(path);
    expect(await call(second, "get_car_status")).toMatchObject({ fuel_gallons: 50, doors: { all_locked: true } });
    await second.store.undo();
    expect(await call(second, "get_car_status")).toMatchObject({ fuel_gallons: 50, doors: { all_locked: false } });
    await second.store.undo();
    expect((await call(second, "check_fuel_level")).fuel_gallons).toBe(10);
  });

  it("shows a readable view", () => {
    const profile = open();
    const view = profile.store.read((tx) => carApp.view(tx, profile.environment));
    expect(view.text).toContain("Fuel: 10 / 50 gallons");
    expect(view.text).toContain("low: rear_left");
  });
});
