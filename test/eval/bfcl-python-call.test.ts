import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PythonCallSyntaxError, defaultBfclDataDirectory, formatPythonCall, parsePythonCall, parsePythonCalls } from "../../src/eval/bfcl/index.js";

function groundTruthStrings(): string[] {
  const strings: string[] = [];
  for (const category of ["multi_turn_base", "multi_turn_miss_func"]) {
    const path = join(defaultBfclDataDirectory(), "possible_answer", `BFCL_v4_${category}.json`);
    for (const line of readFileSync(path, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      for (const turn of (JSON.parse(line) as { ground_truth: string[][] }).ground_truth) strings.push(...turn);
    }
  }
  return strings;
}

describe("Python call parser", () => {
  it("parses every ground-truth call string of the data", () => {
    const strings = groundTruthStrings();
    expect(strings.length).toBeGreaterThan(2000);
    for (const source of strings) {
      const call = parsePythonCall(source);
      expect(call.name).toMatch(/^[A-Za-z_][\w.]*$/);
    }
  });

  it("reads keyword and positional arguments", () => {
    expect(parsePythonCall("fillFuelTank(fuelAmount=40)")).toEqual({ name: "fillFuelTank", positional: [], keywords: { fuelAmount: 40 } });
    expect(parsePythonCall("sort('final_report.pdf')")).toEqual({ name: "sort", positional: ["final_report.pdf"], keywords: {} });
    expect(parsePythonCall("math.factorial(number=5)").name).toBe("math.factorial");
  });

  it("reads nested lists, tuples, dicts and Python constants", () => {
    const call = parsePythonCall("f(a=[1, [2, 3]], b=(4, 5), c={'k': None, \"t\": True}, d=False, e=())");
    expect(call.keywords).toEqual({ a: [1, [2, 3]], b: [4, 5], c: { k: null, t: true }, d: false, e: [] });
  });

  it("reads negative numbers, floats and exponents", () => {
    expect(parsePythonCall("f(a=-3, b=2.5, c=-1e-3, d=.5, e=1_000)").keywords).toEqual({ a: -3, b: 2.5, c: -0.001, d: 0.5, e: 1000 });
  });

  it("reads strings with escapes, both quotes, raw strings and concatenation", () => {
    const call = parsePythonCall(String.raw`f(a='it\'s', b="say \"hi\"\n", c=r'\d+', d='x' 'y', e='\u00e9\x41')`);
    expect(call.keywords).toEqual({ a: "it's", b: 'say "hi"\n', c: "\\d+", d: "xy", e: "éA" });
  });

  it("reads several calls in a list or separated by semicolons", () => {
    expect(parsePythonCalls("[cd(folder='a'), ls()]").map((call) => call.name)).toEqual(["cd", "ls"]);
    expect(parsePythonCalls("cd(folder='a'); ls(a=True)").map((call) => call.keywords)).toEqual([{ folder: "a" }, { a: true }]);
  });

  it("rejects malformed text with a clear error", () => {
    for (const source of ["f(a=1", "f(a=os.system('x'))", "f(a=1, 2)", "f(a='open)", "(1)", "f(a=1) g()"]) {
      expect(() => parsePythonCall(source)).toThrow(PythonCallSyntaxError);
    }
    expect(() => parsePythonCall("f(a=1")).toThrow(/Cannot parse the Python call/);
  });

  it("writes calls back as Python that parses to the same call", () => {
    const args = { path: "a'b\\c", flags: [true, null, 2.5], options: { deep: [1] } };
    const source = formatPythonCall("tool", args);
    expect(parsePythonCall(source)).toEqual({ name: "tool", positional: [], keywords: args });
  });
});
