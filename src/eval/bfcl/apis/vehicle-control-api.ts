import { PythonRandom } from "../python-random.js";
import { ApiExecutionError, type MethodDefinition, StatefulApi, configValue } from "./stateful-api.js";

const MAX_FUEL_LEVEL = 50;
const MIN_FUEL_LEVEL = 0;
const MILES_PER_GALLON = 20;

const DEFAULT_DOORS: Record<string, string> = { driver: "unlocked", passenger: "unlocked", rear_left: "unlocked", rear_right: "unlocked" };

/** Road distances between the zip codes the cases use, both directions. */
const DISTANCES: Array<[string, string, number]> = [
  ["83214", "74532", 750],
  ["56108", "62947", 320],
  ["71354", "83462", 450],
  ["47329", "52013", 290],
  ["69238", "51479", 630],
  ["94016", "83214", 980],
  ["94016", "94704", 600],
  ["94704", "08540", 2550],
  ["94016", "08540", 1950],
  ["62947", "47329", 1053],
  ["94016", "62947", 780],
  ["74532", "94016", 880],
];

const ZIP_CODES: Record<string, string> = {
  Rivermist: "83214",
  Stonebrook: "74532",
  Maplecrest: "56108",
  Silverpine: "62947",
  Shadowridge: "71354",
  "Sunset Valley": "83462",
  Oakendale: "47329",
  Willowbend: "52013",
  "Crescent Hollow": "69238",
  Autumnville: "51479",
  "San Francisco": "94016",
};

/** BFCL's VehicleControlAPI: engine, doors, brakes, climate, cruise control and trip helpers of one car. */
export class VehicleControlAPI extends StatefulApi {
  readonly className = "VehicleControlAPI";
  private random = new PythonRandom(141053);
  private fuelLevel = 0;
  private batteryVoltage = 12.6;
  private engineState = "stopped";
  private remainingUnlockedDoors = 4;
  private doorStatus: Record<string, string> = {};
  private acTemperature = 25;
  private fanSpeed = 50;
  private acMode = "auto";
  private humidityLevel = 50;
  private headLightStatus = "off";
  private parkingBrakeStatus = "released";
  private parkingBrakeForce = 0;
  private slopeAngle = 0;
  private brakePedalStatus = "released";
  private brakePedalForce = 0;
  private distanceToNextVehicle = 50;
  private cruiseStatus = "inactive";
  private destination = "None";
  private frontLeftTirePressure = 32;
  private frontRightTirePressure = 32;
  private rearLeftTirePressure = 30;
  private rearRightTirePressure = 30;
  private longContext = false;

  load(config: Record<string, unknown>): void {
    this.random = new PythonRandom(typeof config.random_seed === "number" ? config.random_seed : 141053);
    this.fuelLevel = configValue(config, "fuelLevel", 0);
    this.batteryVoltage = configValue(config, "batteryVoltage", 12.6);
    this.engineState = configValue(config, "engineState", "stopped");
    this.doorStatus = configValue(config, "doorStatus", DEFAULT_DOORS);
    // The reference derives the count from the doors, whatever the scenario says.
    this.remainingUnlockedDoors = 4 - Object.values(this.doorStatus).filter((status) => status === "locked").length;
    this.acTemperature = configValue(config, "acTemperature", 25);
    this.fanSpeed = configValue(config, "fanSpeed", 50);
    this.acMode = configValue(config, "acMode", "auto");
    this.humidityLevel = configValue(config, "humidityLevel", 50);
    this.headLightStatus = configValue(config, "headLightStatus", "off");
    this.parkingBrakeStatus = configValue(config, "parkingBrakeStatus", "released");
    this.parkingBrakeForce = configValue(config, "parkingBrakeForce", 0);
    this.slopeAngle = configValue(config, "slopeAngle", 0);
    this.brakePedalStatus = configValue(config, "brakePedalStatus", "released");
    this.brakePedalForce = configValue(config, "brakePedalForce", 0);
    this.distanceToNextVehicle = configValue(config, "distanceToNextVehicle", 50);
    this.cruiseStatus = configValue(config, "cruiseStatus", "inactive");
    this.destination = configValue(config, "destination", "None");
    this.frontLeftTirePressure = configValue(config, "frontLeftTirePressure", 32);
    this.frontRightTirePressure = configValue(config, "frontRightTirePressure", 32);
    this.rearLeftTirePressure = configValue(config, "rearLeftTirePressure", 30);
    this.rearRightTirePressure = configValue(config, "rearRightTirePressure", 30);
    this.longContext = false;
  }

  /** Parking-brake force, slope angle and brake-pedal force are private upstream: not compared. */
  state(): Record<string, unknown> {
    return structuredClone({
      fuelLevel: this.fuelLevel,
      batteryVoltage: this.batteryVoltage,
      engine_state: this.engineState,
      remainingUnlockedDoors: this.remainingUnlockedDoors,
      doorStatus: this.doorStatus,
      acTemperature: this.acTemperature,
      fanSpeed: this.fanSpeed,
      acMode: this.acMode,
      humidityLevel: this.humidityLevel,
      headLightStatus: this.headLightStatus,
      parkingBrakeStatus: this.parkingBrakeStatus,
      brakePedalStatus: this.brakePedalStatus,
      distanceToNextVehicle: this.distanceToNextVehicle,
      cruiseStatus: this.cruiseStatus,
      destination: this.destination,
      frontLeftTirePressure: this.frontLeftTirePressure,
      frontRightTirePressure: this.frontRightTirePressure,
      rearLeftTirePressure: this.rearLeftTirePressure,
      rearRightTirePressure: this.rearRightTirePressure,
      long_context: this.longContext,
    });
  }

  private setDoors(doors: unknown[], target: "locked" | "unlocked"): void {
    for (const door of doors) {
      const name = String(door);
      if (!Object.hasOwn(this.doorStatus, name)) throw new ApiExecutionError(`'${name}'`);
      if (this.doorStatus[name] === target) continue;
      this.doorStatus[name] = target;
      this.remainingUnlockedDoors += target === "unlocked" ? 1 : -1;
    }
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    startEngine: {
      parameters: ["ignitionMode"],
      run: (args) => {
        const mode = args.raw("ignitionMode");
        if (mode === "STOP") this.engineState = "stopped";
        if (this.remainingUnlockedDoors > 0) {
          const unlocked = Object.entries(this.doorStatus)
            .filter(([, status]) => status === "unlocked")
            .map(([door]) => door);
          return { error: `All doors must be locked before starting the engine. Here are the unlocked doors: ${unlocked.join(", ")}` };
        }
        if (this.brakePedalStatus !== "pressed") return { error: "Brake pedal needs to be pressed when starting the engine." };
        if (this.brakePedalForce !== 1000) return { error: "Must press the brake fully before starting the engine." };
        if (this.fuelLevel < MIN_FUEL_LEVEL) return { error: "Fuel tank is empty." };
        if (mode !== "START") return { error: "Invalid ignition mode." };
        this.engineState = "running";
        return { engineState: this.engineState, fuelLevel: this.fuelLevel, batteryVoltage: this.batteryVoltage };
      },
    },
    fillFuelTank: {
      parameters: ["fuelAmount"],
      run: (args) => {
        const amount = args.number("fuelAmount");
        if (amount < 0) return { error: "Fuel amount cannot be negative." };
        if (this.fuelLevel + amount > MAX_FUEL_LEVEL) return { error: "Cannot fill gas above the tank capacity." };
        if (this.fuelLevel + amount < MIN_FUEL_LEVEL) return { error: "Fuel tank is empty. Min fuel level is 0 gallons." };
        this.fuelLevel += amount;
        return { fuelLevel: this.fuelLevel };
      },
    },
    lockDoors: {
      parameters: ["unlock", "door"],
      run: (args) => {
        const unlock = args.boolean("unlock");
        this.setDoors(args.list("door"), unlock ? "unlocked" : "locked");
        return { lockStatus: unlock ? "unlocked" : "locked", remainingUnlockedDoors: this.remainingUnlockedDoors };
      },
    },
    adjustClimateControl: {
      parameters: ["temperature", "unit?", "fanSpeed?", "mode?"],
      run: (args) => {
        const temperature = args.number("temperature");
        const fanSpeed = args.optionalNumber("fanSpeed") ?? 50;
        const mode = args.has("mode") ? args.raw("mode") : "auto";
        if (!(fanSpeed >= 0 && fanSpeed <= 100)) return { error: "Fan speed must be between 0 and 100." };
        this.acTemperature = args.has("unit") && args.raw("unit") === "fahrenheit" ? ((temperature - 32) * 5) / 9 : temperature;
        this.fanSpeed = fanSpeed;
        this.acMode = String(mode);
        return { currentACTemperature: temperature, climateMode: mode, humidityLevel: this.humidityLevel };
      },
    },
    get_outside_temperature_from_google: { parameters: [], run: () => ({ outsideTemperature: this.random.uniform(-10, 40) }) },
    get_outside_temperature_from_weather_com: { parameters: [], run: () => ({ error: 404 }) },
    setHeadlights: {
      parameters: ["mode"],
      run: (args) => {
        const mode = args.raw("mode");
        if (mode !== "on" && mode !== "off" && mode !== "auto") return { error: "Invalid headlight mode." };
        this.headLightStatus = mode === "on" ? "on" : "off";
        return { headlightStatus: this.headLightStatus };
      },
    },
    displayCarStatus: {
      parameters: ["option"],
      run: (args) => {
        switch (args.raw("option")) {
          case "fuel":
            return { fuelLevel: this.fuelLevel };
          case "battery":
            return { batteryVoltage: this.batteryVoltage };
          case "doors":
            return { doorStatus: { ...this.doorStatus } };
          case "climate":
            return { currentACTemperature: this.acTemperature, fanSpeed: this.fanSpeed, climateMode: this.acMode, humidityLevel: this.humidityLevel };
          case "headlights":
            return { headlightStatus: this.headLightStatus };
          case "parkingBrake":
            return { parkingBrakeStatus: this.parkingBrakeStatus, parkingBrakeForce: this.parkingBrakeForce, slopeAngle: this.slopeAngle };
          case "brakePedal":
            return { brakePedalStatus: this.brakePedalStatus, brakePedalForce: this.brakePedalForce };
          case "engine":
            return { engineState: this.engineState };
          default:
            return { error: "Invalid option" };
        }
      },
    },
    activateParkingBrake: {
      parameters: ["mode"],
      run: (args) => {
        const mode = args.raw("mode");
        if (mode !== "engage" && mode !== "release") return { error: "Invalid mode" };
        this.parkingBrakeStatus = mode === "engage" ? "engaged" : "released";
        this.parkingBrakeForce = mode === "engage" ? 500 : 0;
        this.slopeAngle = 10;
        return { parkingBrakeStatus: this.parkingBrakeStatus, _parkingBrakeForce: this.parkingBrakeForce, _slopeAngle: 10 };
      },
    },
    pressBrakePedal: {
      parameters: ["pedalPosition"],
      run: (args) => {
        const position = args.number("pedalPosition");
        if (!(position >= 0 && position <= 1)) return { error: "Pedal position must be between 0 and 1." };
        if (position === 0) {
          this.brakePedalStatus = "released";
          this.brakePedalForce = 0;
          return { brakePedalStatus: "released", brakePedalForce: 0 };
        }
        this.brakePedalStatus = "pressed";
        this.brakePedalForce = position * 1000;
        return { brakePedalStatus: "pressed", brakePedalForce: this.brakePedalForce };
      },
    },
    releaseBrakePedal: {
      parameters: [],
      run: () => {
        this.brakePedalStatus = "released";
        this.brakePedalForce = 0;
        return { brakePedalStatus: "released", brakePedalForce: 0 };
      },
    },
    setCruiseControl: {
      parameters: ["speed", "activate", "distanceToNextVehicle"],
      run: (args) => {
        const distance = args.number("distanceToNextVehicle");
        const speed = args.number("speed");
        if (this.engineState === "stopped") return { error: "Start the engine before activating the cruise control." };
        this.distanceToNextVehicle = distance;
        if (args.boolean("activate")) {
          if (speed < 0 || speed > 120 || speed % 5 !== 0) return { error: "Invalid speed" };
          this.cruiseStatus = "active";
        } else {
          this.cruiseStatus = "inactive";
        }
        return { cruiseStatus: this.cruiseStatus, currentSpeed: speed, distanceToNextVehicle: distance };
      },
    },
    get_current_speed: { parameters: [], run: () => ({ currentSpeed: this.random.uniform(0, 120) }) },
    display_log: { parameters: ["messages"], run: (args) => ({ log: args.list("messages") }) },
    estimate_drive_feasibility_by_mileage: {
      parameters: ["distance"],
      run: (args) => ({ canDrive: !(this.fuelLevel * MILES_PER_GALLON < args.number("distance")) }),
    },
    liter_to_gallon: { parameters: ["liter"], run: (args) => ({ gallon: args.number("liter") * 0.264172 }) },
    gallon_to_liter: { parameters: ["gallon"], run: (args) => ({ liter: args.number("gallon") * 3.78541 }) },
    estimate_distance: {
      parameters: ["cityA", "cityB"],
      run: (args) => {
        const a = args.raw("cityA");
        const b = args.raw("cityB");
        const found = DISTANCES.find(([x, y]) => (a === x && b === y) || (a === y && b === x));
        return found ? { distance: found[2] } : { error: "distance not found in database." };
      },
    },
    get_zipcode_based_on_city: {
      parameters: ["city"],
      run: (args) => {
        const city = String(args.raw("city"));
        return { zipcode: Object.hasOwn(ZIP_CODES, city) ? ZIP_CODES[city] : "00000" };
      },
    },
    set_navigation: {
      parameters: ["destination"],
      run: (args) => {
        this.destination = String(args.raw("destination"));
        return { status: `Navigating to ${this.destination}` };
      },
    },
    check_tire_pressure: {
      parameters: [],
      run: () => {
        const average = (this.frontLeftTirePressure + this.frontRightTirePressure + this.rearLeftTirePressure + this.rearRightTirePressure) / 4;
        return {
          frontLeftTirePressure: this.frontLeftTirePressure,
          frontRightTirePressure: this.frontRightTirePressure,
          rearLeftTirePressure: this.rearLeftTirePressure,
          rearRightTirePressure: this.rearRightTirePressure,
          healthy_tire_pressure: average >= 30 && average <= 35,
          car_info: {},
        };
      },
    },
    find_nearest_tire_shop: { parameters: [], run: () => ({ shopLocation: "456 Oakwood Avenue, Rivermist, 83214" }) },
  };
}
