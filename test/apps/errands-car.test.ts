import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { carApp } from "../../src/apps/errands/car.js";
import { mapsApp } from "../../src/apps/errands/maps.js";
import { risks, TestProfiles, toolFailure, toolFinder, toolRunner } from "./support.js";

const profiles = new TestProfiles({ apps: [carApp, mapsApp], home: tmpdir() }, "botpsy-car-");

const tool = toolFinder(carApp);

const call = toolRunner(tool);
const failure = toolFailure(tool);

afterEach(() => profiles.closeAll());

describe("car app", () => {
  it("declares a risk class for every tool", () => {
    expect(risks(carApp)).toEqual({
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
    const profile = profiles.open();
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
    const profile = profiles.open();
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
    const profile = profiles.open();
    await call(profile, "lock_car_doors");
    const result = await call(profile, "unlock_car_doors", { door: "Rear Left" });
    expect(result).toMatchObject({ unlocked: ["rear_left"], doors: { all_locked: false, unlocked: ["rear_left"] } });
    await expect(profile.runTool(tool("lock_car_doors"), { door: "boot" })).rejects.toThrow();
  });

  it("rejects bad fuel amounts and refuses to start an empty car", async () => {
    const profile = profiles.open();
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
    const profile = profiles.open();
    expect(await call(profile, "set_car_climate", { temperature: 22, fan_speed: 3 })).toMatchObject({
      climate: { on: true, temperature_celsius: 22, fan_speed: 3 },
    });
    expect(await call(profile, "set_car_climate", { temperature: 68, unit: "Fahrenheit" })).toMatchObject({ climate: { temperature_celsius: 20 } });
    expect((await failure(profile, "set_car_climate", { temperature: 40 })).code).toBe("temperature_out_of_range");
    expect((await failure(profile, "set_car_climate", {})).code).toBe("invalid_argument");
    expect(await call(profile, "set_car_climate", { on: false })).toMatchObject({ climate: { on: false } });
  });

  it("reports the low tyre of the demo car", async () => {
    const profile = profiles.open();
    const result = await call(profile, "check_tyre_pressure");
    expect(result.low_tyres).toEqual(["rear_left"]);
    expect(String(result.advice)).toContain("35 psi");
  });

  it("estimates range from fuel and mpg, and whether a destination is in reach", async () => {
    const profile = profiles.open();
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
    const profile = profiles.open({ seed: "empty", apps: [carApp] });
    const error = await failure(profile, "get_car_status");
    expect(error.code).toBe("no_car");
  });

  it("keeps its state across a reopened database, and undo restores it", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    await call(first, "add_fuel", { gallons: 40 });
    await call(first, "lock_car_doors");
    first.close();
    const second = profiles.open({ databasePath: path });
    expect(await call(second, "get_car_status")).toMatchObject({ fuel_gallons: 50, doors: { all_locked: true } });
    await second.store.undo();
    expect(await call(second, "get_car_status")).toMatchObject({ fuel_gallons: 50, doors: { all_locked: false } });
    await second.store.undo();
    expect((await call(second, "check_fuel_level")).fuel_gallons).toBe(10);
  });

  it("shows a readable view", () => {
    const profile = profiles.open();
    const view = profile.store.read((tx) => carApp.view(tx, profile.environment));
    expect(view.text).toContain("Fuel: 10 / 50 gallons");
    expect(view.text).toContain("low: rear_left");
  });
});
