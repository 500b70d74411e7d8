import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { looseBoolean, looseEnum, looseNumber } from "../shared.js";
import { distanceBetween } from "./maps.js";

export const CAR_APP = "car";
const CAR_ID = "car";

export const DOORS = ["driver", "passenger", "rear_left", "rear_right"] as const;
export type Door = (typeof DOORS)[number];
export const TYRES = ["front_left", "front_right", "rear_left", "rear_right"] as const;
export type Tyre = (typeof TYRES)[number];

export interface CarState {
  model: string;
  /** Gallons in the tank. */
  fuelGallons: number;
  tankCapacityGallons: number;
  milesPerGallon: number;
  engine: "off" | "running";
  brakePressed: boolean;
  doorsLocked: Record<Door, boolean>;
  climate: { on: boolean; temperatureCelsius: number; fanSpeed: number };
  /** Pressure in psi. */
  tyrePressure: Record<Tyre, number>;
  odometerMiles: number;
  parkedAt: string;
}

/** Recommended tyre pressure for this car, psi. */
const TYRE_TARGET_PSI = 35;
const TYRE_LOW_PSI = 30;

function initialCar(): CarState {
  return {
    model: "2022 Volta E-Hybrid",
    fuelGallons: 10,
    tankCapacityGallons: 50,
    milesPerGallon: 32,
    engine: "off",
    brakePressed: false,
    doorsLocked: { driver: false, passenger: false, rear_left: false, rear_right: false },
    climate: { on: false, temperatureCelsius: 21, fanSpeed: 2 },
    tyrePressure: { front_left: 35, front_right: 34, rear_left: 28, rear_right: 35 },
    odometerMiles: 18_432,
    parkedAt: "home",
  };
}

function readCar(tx: StoreTransaction): CarState {
  const car = tx.collection<CarState>(CAR_APP, "state").get(CAR_ID);
  if (car === undefined) {
    throw new ToolError("no_car", "No car is connected to this profile. Pair one in the car app (a demo profile has one), then retry.");
  }
  return car;
}

function writeCar(tx: StoreTransaction, car: CarState): void {
  tx.collection<CarState>(CAR_APP, "state").put(CAR_ID, car);
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function rangeMiles(car: CarState): number {
  return round(car.fuelGallons * car.milesPerGallon, 0);
}

function lockedSummary(car: CarState): { all_locked: boolean; unlocked: Door[] } {
  const unlocked = DOORS.filter((door) => !car.doorsLocked[door]);
  return { all_locked: unlocked.length === 0, unlocked };
}

function lowTyres(car: CarState): Tyre[] {
  return TYRES.filter((tyre) => car.tyrePressure[tyre] < TYRE_LOW_PSI);
}

function status(car: CarState) {
  return {
    model: car.model,
    engine: car.engine,
    fuel_gallons: round(car.fuelGallons),
    tank_capacity_gallons: car.tankCapacityGallons,
    range_miles: rangeMiles(car),
    brake_pressed: car.brakePressed,
    doors: lockedSummary(car),
    climate: { on: car.climate.on, temperature_celsius: car.climate.temperatureCelsius, fan_speed: car.climate.fanSpeed },
    low_tyres: lowTyres(car),
    odometer_miles: car.odometerMiles,
    parked_at: car.parkedAt,
  };
}

const doorsInput = looseEnum(["all", ...DOORS] as const)
  .optional()
  .describe('Which door: "all" (default), "driver", "passenger", "rear_left" or "rear_right"');

const getCarStatus = defineTool({
  name: "get_car_status",
  description: "Show the car's status: engine, fuel, range, doors, brake, climate and tyre warnings.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => status(readCar(context.store)),
});

const checkFuelLevel = defineTool({
  name: "check_fuel_level",
  description: "Check how many gallons of fuel are in the car and how many more fit in the tank.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const car = readCar(context.store);
    return {
      fuel_gallons: round(car.fuelGallons),
      tank_capacity_gallons: car.tankCapacityGallons,
      room_gallons: round(car.tankCapacityGallons - car.fuelGallons),
      range_miles: rangeMiles(car),
    };
  },
});

const addFuel = defineTool({
  name: "add_fuel",
  description: "Fill the car's tank with the given number of gallons. The tank cannot be filled beyond its capacity.",
  input: z.object({
    gallons: looseNumber(z.number().positive().max(1000)).describe("Gallons to add, e.g. 40"),
  }),
  risk: "settings",
  run: ({ gallons }, context) => {
    const car = readCar(context.store);
    if (car.engine === "running") {
      throw new ToolError("engine_running", "Cannot refuel while the engine is running. Stop it with stop_engine, then retry.");
    }
    const room = round(car.tankCapacityGallons - car.fuelGallons, 3);
    if (gallons > room + 1e-9) {
      throw new ToolError(
        "tank_overfill",
        `Cannot add ${gallons} gallons: the tank holds ${car.tankCapacityGallons} gallons and has ${round(car.fuelGallons)}, so only ${round(room)} fit. Add ${round(room)} gallons or less.`,
        { room_gallons: round(room) },
      );
    }
    car.fuelGallons = round(car.fuelGallons + gallons, 3);
    writeCar(context.store, car);
    return { added_gallons: gallons, fuel_gallons: round(car.fuelGallons), tank_capacity_gallons: car.tankCapacityGallons, range_miles: rangeMiles(car) };
  },
});

function setDoors(car: CarState, door: "all" | Door | undefined, locked: boolean): Door[] {
  const targets = door === undefined || door === "all" ? [...DOORS] : [door];
  for (const target of targets) car.doorsLocked[target] = locked;
  return targets;
}

const lockCarDoors = defineTool({
  name: "lock_car_doors",
  description: "Lock the car's doors (all by default).",
  input: z.object({ door: doorsInput }),
  risk: "settings",
  run: ({ door }, context) => {
    const car = readCar(context.store);
    const changed = setDoors(car, door, true);
    writeCar(context.store, car);
    return { locked: changed, doors: lockedSummary(car) };
  },
});

const unlockCarDoors = defineTool({
  name: "unlock_car_doors",
  description: "Unlock the car's doors (all by default).",
  input: z.object({ door: doorsInput }),
  risk: "settings",
  run: ({ door }, context) => {
    const car = readCar(context.store);
    const changed = setDoors(car, door, false);
    writeCar(context.store, car);
    return { unlocked: changed, doors: lockedSummary(car) };
  },
});

const pressBrakePedal = defineTool({
  name: "press_brake_pedal",
  description: "Press and hold the brake pedal (needed before starting the engine).",
  input: z.object({}),
  risk: "settings",
  run: (_args, context) => {
    const car = readCar(context.store);
    car.brakePressed = true;
    writeCar(context.store, car);
    return { brake_pressed: true };
  },
});

const releaseBrakePedal = defineTool({
  name: "release_brake_pedal",
  description: "Release the brake pedal.",
  input: z.object({}),
  risk: "settings",
  run: (_args, context) => {
    const car = readCar(context.store);
    car.brakePressed = false;
    writeCar(context.store, car);
    return { brake_pressed: false };
  },
});

const startEngine = defineTool({
  name: "start_engine",
  description: "Start the car's engine. The brake pedal must be pressed and all doors locked first.",
  input: z.object({}),
  risk: "settings",
  run: (_args, context) => {
    const car = readCar(context.store);
    if (car.engine === "running") throw new ToolError("engine_already_running", "The engine is already running. Nothing to do.");
    if (car.fuelGallons <= 0) throw new ToolError("out_of_fuel", "The tank is empty. Add fuel with add_fuel(gallons=...), then retry.");
    const doors = lockedSummary(car);
    if (!doors.all_locked) {
      throw new ToolError(
        "doors_unlocked",
        `Cannot start the engine: ${doors.unlocked.join(", ")} door${doors.unlocked.length > 1 ? "s are" : " is"} unlocked. Lock them with lock_car_doors(door="all"), then retry.`,
      );
    }
    if (!car.brakePressed) {
      throw new ToolError("brake_not_pressed", "Cannot start the engine: the brake pedal is not pressed. Press it with press_brake_pedal, then retry.");
    }
    car.engine = "running";
    writeCar(context.store, car);
    return { engine: "running", fuel_gallons: round(car.fuelGallons), range_miles: rangeMiles(car) };
  },
});

const stopEngine = defineTool({
  name: "stop_engine",
  description: "Stop the car's engine.",
  input: z.object({}),
  risk: "settings",
  run: (_args, context) => {
    const car = readCar(context.store);
    if (car.engine === "off") throw new ToolError("engine_not_running", "The engine is already off. Nothing to do.");
    car.engine = "off";
    writeCar(context.store, car);
    return { engine: "off" };
  },
});

const setCarClimate = defineTool({
  name: "set_car_climate",
  description: "Set the car's climate: temperature, fan speed, or turn it on or off.",
  input: z.object({
    temperature: looseNumber(z.number()).optional().describe("Target temperature, e.g. 21"),
    unit: looseEnum(["celsius", "fahrenheit"] as const).optional().describe('"celsius" (default) or "fahrenheit"'),
    fan_speed: looseNumber(z.number().int().min(0).max(5)).optional().describe("Fan speed 0 to 5, e.g. 3"),
    on: looseBoolean().optional().describe("true to turn the climate on, false to turn it off"),
  }),
  risk: "settings",
  run: ({ temperature, unit, fan_speed, on }, context) => {
    if (temperature === undefined && fan_speed === undefined && on === undefined) {
      throw new ToolError("invalid_argument", "Say what to change: temperature (e.g. 21), fan_speed (0-5) or on (true/false).");
    }
    const car = readCar(context.store);
    if (temperature !== undefined) {
      const celsius = unit === "fahrenheit" ? round(((temperature - 32) * 5) / 9) : temperature;
      if (celsius < 16 || celsius > 30) {
        throw new ToolError(
          "temperature_out_of_range",
          `temperature ${temperature} ${unit ?? "celsius"} is outside the car's range of 16-30 °C (61-86 °F). Choose a value inside it.`,
        );
      }
      car.climate.temperatureCelsius = celsius;
      car.climate.on = true;
    }
    if (fan_speed !== undefined) {
      car.climate.fanSpeed = fan_speed;
      if (fan_speed > 0) car.climate.on = true;
    }
    if (on !== undefined) car.climate.on = on;
    writeCar(context.store, car);
    return {
      climate: { on: car.climate.on, temperature_celsius: car.climate.temperatureCelsius, fan_speed: car.climate.fanSpeed },
      note: car.engine === "off" && car.climate.on ? "The engine is off: the climate runs once the engine starts." : undefined,
    };
  },
});

const checkTyrePressure = defineTool({
  name: "check_tyre_pressure",
  description: "Check the pressure of the car's four tyres and warn about low ones.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const car = readCar(context.store);
    const low = lowTyres(car);
    return {
      pressure_psi: car.tyrePressure,
      recommended_psi: TYRE_TARGET_PSI,
      low_tyres: low,
      advice: low.length > 0 ? `Inflate ${low.join(", ")} to ${TYRE_TARGET_PSI} psi before a long drive.` : "All tyres are fine.",
    };
  },
});

const estimateDrivingRange = defineTool({
  name: "estimate_driving_range",
  description: "Estimate how many miles the car can drive on its fuel, or whether it can reach a place or drive a distance.",
  input: z.object({
    destination: z.string().optional().describe('A place to drive to, e.g. "Porto" or "Lisbon Airport"'),
    distance_miles: looseNumber(z.number().positive()).optional().describe("A distance to drive in miles, e.g. 120"),
  }),
  risk: "read",
  run: ({ destination, distance_miles }, context) => {
    const car = readCar(context.store);
    const range = rangeMiles(car);
    let miles = distance_miles;
    let to: string | undefined;
    if (destination !== undefined) {
      const route = distanceBetween(context.store, car.parkedAt, destination);
      miles = route.drivingMiles;
      to = route.to;
    }
    if (miles === undefined) {
      return { fuel_gallons: round(car.fuelGallons), miles_per_gallon: car.milesPerGallon, range_miles: range };
    }
    const neededGallons = round(miles / car.milesPerGallon);
    const enough = miles <= range;
    return {
      destination: to,
      distance_miles: round(miles),
      range_miles: range,
      fuel_needed_gallons: neededGallons,
      enough_fuel: enough,
      advice: enough
        ? `Enough fuel: ${round(range - miles)} miles to spare.`
        : `Not enough fuel: add at least ${round(neededGallons - car.fuelGallons)} gallons with add_fuel first.`,
    };
  },
});

export const carApp: App = {
  name: CAR_APP,
  group: "errands",
  title: "Car",
  description: "A connected car: fuel, engine, doors, climate, tyres and range.",
  tools: [
    getCarStatus,
    checkFuelLevel,
    addFuel,
    lockCarDoors,
    unlockCarDoors,
    pressBrakePedal,
    releaseBrakePedal,
    startEngine,
    stopEngine,
    setCarClimate,
    checkTyrePressure,
    estimateDrivingRange,
  ],
  seed(tx) {
    writeCar(tx, initialCar());
  },
  view(tx) {
    const car = tx.collection<CarState>(CAR_APP, "state").get(CAR_ID);
    if (car === undefined) return { text: "No car connected.", data: null };
    const data = status(car);
    const text = [
      `${car.model} — parked at ${car.parkedAt}, ${car.odometerMiles} miles`,
      `Engine: ${car.engine}   Brake: ${car.brakePressed ? "pressed" : "released"}`,
      `Fuel: ${data.fuel_gallons} / ${car.tankCapacityGallons} gallons (range ${data.range_miles} miles at ${car.milesPerGallon} mpg)`,
      `Doors: ${data.doors.all_locked ? "all locked" : `unlocked: ${data.doors.unlocked.join(", ")}`}`,
      `Climate: ${car.climate.on ? "on" : "off"}, ${car.climate.temperatureCelsius} °C, fan ${car.climate.fanSpeed}`,
      `Tyres (psi): ${TYRES.map((tyre) => `${tyre.replace("_", " ")} ${car.tyrePressure[tyre]}`).join(", ")}` +
        (data.low_tyres.length > 0 ? `  — low: ${data.low_tyres.join(", ")}` : ""),
    ].join("\n");
    return { text, data };
  },
};
