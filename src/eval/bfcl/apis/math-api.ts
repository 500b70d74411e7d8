import { type MethodDefinition, StatefulApi, pythonRound } from "./stateful-api.js";

type Result = Record<string, unknown>;

const METERS_PER_UNIT: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mm: 0.001, um: 1e-6, nm: 1e-9 };
const IMPERIAL_SI_FACTORS: Record<string, number> = {
  cm_to_in: 0.393701,
  in_to_cm: 2.54,
  m_to_ft: 3.28084,
  ft_to_m: 0.3048,
  m_to_yd: 1.09361,
  yd_to_m: 0.9144,
  km_to_miles: 0.621371,
  miles_to_km: 1.60934,
  kg_to_lb: 2.20462,
  lb_to_kg: 0.453592,
  celsius_to_fahrenheit: 1.8,
  fahrenheit_to_celsius: 5 / 9,
};

/** BFCL's MathAPI: stateless arithmetic, statistics and unit conversions. */
export class MathAPI extends StatefulApi {
  readonly className = "MathAPI";

  load(): void {
    // Stateless: the reference never loads a scenario for it.
  }

  state(): Record<string, unknown> {
    return {};
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    logarithm: {
      parameters: ["value", "base", "precision"],
      run: (args) => {
        const value = args.number("value");
        const base = args.number("base");
        args.number("precision");
        if (value <= 0 || base <= 0 || base === 1) return { error: "math domain error" };
        return { result: Math.log(value) / Math.log(base) };
      },
    },
    mean: { parameters: ["numbers"], run: (args) => this.ofList(args.numberList("numbers"), "Cannot calculate mean of an empty list", (numbers) => sum(numbers) / numbers.length) },
    standard_deviation: {
      parameters: ["numbers"],
      run: (args) =>
        this.ofList(args.numberList("numbers"), "Cannot calculate standard deviation of an empty list", (numbers) => {
          const mean = sum(numbers) / numbers.length;
          return Math.sqrt(sum(numbers.map((x) => (x - mean) ** 2)) / numbers.length);
        }),
    },
    si_unit_conversion: {
      parameters: ["value", "unit_in", "unit_out"],
      run: (args) => {
        const value = args.raw("value");
        if (typeof value !== "number") return { error: "Value must be a number" };
        const unitIn = String(args.raw("unit_in"));
        const unitOut = String(args.raw("unit_out"));
        const factorIn = METERS_PER_UNIT[unitIn];
        const factorOut = METERS_PER_UNIT[unitOut];
        if (factorIn === undefined || factorOut === undefined) return { error: `Conversion from '${unitIn}' to '${unitOut}' is not supported` };
        return { result: value * factorIn * (1 / factorOut) };
      },
    },
    imperial_si_conversion: {
      parameters: ["value", "unit_in", "unit_out"],
      run: (args) => {
        const value = args.raw("value");
        if (typeof value !== "number") return { error: "Value must be a number" };
        const unitIn = String(args.raw("unit_in"));
        const unitOut = String(args.raw("unit_out"));
        if (unitIn === unitOut) return { result: value };
        const factor = IMPERIAL_SI_FACTORS[`${unitIn}_to_${unitOut}`];
        if (factor === undefined) return { error: `Conversion from '${unitIn}' to '${unitOut}' is not supported` };
        if (unitIn === "celsius" && unitOut === "fahrenheit") return { result: value * factor + 32 };
        if (unitIn === "fahrenheit" && unitOut === "celsius") return { result: (value - 32) * factor };
        return { result: value * factor };
      },
    },
    add: { parameters: ["a", "b"], run: (args) => this.binary(args.raw("a"), args.raw("b"), (a, b) => ({ result: a + b })) },
    subtract: { parameters: ["a", "b"], run: (args) => this.binary(args.raw("a"), args.raw("b"), (a, b) => ({ result: a - b })) },
    multiply: { parameters: ["a", "b"], run: (args) => this.binary(args.raw("a"), args.raw("b"), (a, b) => ({ result: a * b })) },
    divide: {
      parameters: ["a", "b"],
      run: (args) => this.binary(args.raw("a"), args.raw("b"), (a, b) => (b === 0 ? { error: "Cannot divide by zero" } : { result: a / b })),
    },
    power: { parameters: ["base", "exponent"], run: (args) => this.binary(args.raw("base"), args.raw("exponent"), (a, b) => ({ result: a ** b })) },
    square_root: {
      parameters: ["number", "precision"],
      run: (args) => {
        const number = args.raw("number");
        if (typeof number !== "number") return { error: "Input must be a number or computation resulted in an invalid operation" };
        if (number < 0) return { error: "Cannot calculate square root of a negative number" };
        const precision = args.number("precision");
        return { result: Number(Math.sqrt(number).toPrecision(Math.min(Math.max(Math.trunc(precision), 1), 17))) };
      },
    },
    absolute_value: {
      parameters: ["number"],
      run: (args) => {
        const number = args.raw("number");
        return typeof number === "number" ? { result: Math.abs(number) } : { error: "Input must be a number" };
      },
    },
    round_number: {
      parameters: ["number", "decimal_places?"],
      run: (args) => {
        const number = args.raw("number");
        const places = args.has("decimal_places") ? args.raw("decimal_places") : 0;
        if (typeof number !== "number" || typeof places !== "number") return { error: "First input must be a number, second input must be an integer" };
        return { result: pythonRound(number, places) };
      },
    },
    percentage: {
      parameters: ["part", "whole"],
      run: (args) => this.binary(args.raw("part"), args.raw("whole"), (part, whole) => (whole === 0 ? { error: "Whole value cannot be zero" } : { result: (part / whole) * 100 })),
    },
    min_value: { parameters: ["numbers"], run: (args) => this.ofList(args.numberList("numbers"), "Cannot find minimum of an empty list", (numbers) => Math.min(...numbers)) },
    max_value: { parameters: ["numbers"], run: (args) => this.ofList(args.numberList("numbers"), "Cannot find maximum of an empty list", (numbers) => Math.max(...numbers)) },
    sum_values: { parameters: ["numbers"], run: (args) => this.ofList(args.numberList("numbers"), "Cannot calculate sum of an empty list", sum) },
  };

  private binary(a: unknown, b: unknown, operation: (a: number, b: number) => Result): Result {
    if (typeof a !== "number" || typeof b !== "number") return { error: "Both inputs must be numbers" };
    return operation(a, b);
  }

  private ofList(numbers: number[], emptyMessage: string, operation: (numbers: number[]) => number): Result {
    if (numbers.length === 0) return { error: emptyMessage };
    return { result: operation(numbers) };
  }
}

function sum(numbers: number[]): number {
  return numbers.reduce((total, value) => total + value, 0);
}
