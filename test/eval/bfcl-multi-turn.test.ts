import { describe, expect, it } from "vitest";
import {
  type BfclMultiTurnCase,
  CallRecorder,
  MultiTurnChecker,
  MultiTurnEnvironment,
  checkGroundTruthAgainstItself,
  compareStates,
  createStatefulApi,
  loadBfclCategory,
  missingResults,
  statefulApiTools,
  ToolNameMap,
} from "../../src/eval/bfcl/index.js";
import { PythonRandom } from "../../src/eval/bfcl/python-random.js";

function multiTurnCases(category: string): BfclMultiTurnCase[] {
  return loadBfclCategory(category).filter((caseData): caseData is BfclMultiTurnCase => caseData.kind === "multi-turn");
}

describe("BFCL stateful APIs", () => {
  it.each(["multi_turn_base", "multi_turn_miss_func"])("every %s ground truth passes its own state and response checks", (category) => {
    const cases = multiTurnCases(category);
    expect(cases).toHaveLength(200);
    const failures = cases.flatMap((caseData) => checkGroundTruthAgainstItself(caseData).filter((check) => !check.valid).map((check) => `${caseData.id}: ${check.message}`));
    expect(failures).toEqual([]);
  });

  it("runs every ground-truth call without an execution error", () => {
    const errors: string[] = [];
    for (const caseData of [...multiTurnCases("multi_turn_base"), ...multiTurnCases("multi_turn_miss_func")]) {
      const environment = new MultiTurnEnvironment(caseData);
      for (const source of caseData.groundTruth.flat()) {
        const result = environment.executeSource(source);
        if (result.startsWith("Error during execution")) errors.push(`${caseData.id} ${source}: ${result}`);
      }
    }
    expect(errors).toEqual([]);
  });

  it("draws the same random numbers as CPython's random.Random", () => {
    const message = new PythonRandom(200191);
    expect([message.randint(10000, 99999), message.randint(10000, 99999)]).toEqual([67410, 41772]);
    const travel = new PythonRandom(141053);
    expect(travel.uniform(-10, 40)).toBeCloseTo(36.63485703790535, 12);
    expect(travel.randint(100000, 999999)).toBe(966117);
    expect(travel.randint(100000000000, 999999999999)).toBe(504861376796);
  });

  it("reproduces the file system's results and errors", () => {
    const files = createStatefulApi("GorillaFileSystem", {
      root: { alex: { type: "directory", contents: { docs: { type: "directory", contents: { "a.txt": { type: "file", content: "b line\na line\n" } } } } } },
    });
    expect(files.invoke("cd", [], { folder: "docs" })).toEqual({ current_working_directory: "docs" });
    expect(files.invoke("pwd", [], {})).toEqual({ current_working_directory: "/alex/docs" });
    expect(files.invoke("sort", ["a.txt"], {})).toEqual({ sorted_content: "a line\nb line" });
    expect(files.invoke("wc", [], { file_name: "a.txt", mode: "w" })).toEqual({ count: 4, type: "words" });
    expect(files.invoke("cd", [], { folder: "x/y" })).toEqual({ error: "cd: x/y: Unsupported path. Only one folder level at a time is supported." });
    expect(files.invoke("mkdir", [], { dir_name: "a.txt" })).toEqual({ error: "mkdir: cannot create directory 'a.txt': File exists" });
    expect(files.invoke("mv", [], { source: "a.txt", destination: "sub/b.txt" })).toEqual({ error: "mv: path not allowed in destination. Provide only a file or directory name." });
    expect(() => files.invoke("cd", [], {})).toThrow("GorillaFileSystem.cd() missing 1 required positional argument: 'folder'");
    expect(() => files.invoke("ls", [], { all: true })).toThrow("got an unexpected keyword argument 'all'");
  });

  it("reproduces the vehicle's start conditions", () => {
    const car = createStatefulApi("VehicleControlAPI", {});
    expect(car.invoke("startEngine", [], { ignitionMode: "START" })).toEqual({
      error: "All doors must be locked before starting the engine. Here are the unlocked doors: driver, passenger, rear_left, rear_right",
    });
    car.invoke("lockDoors", [], { unlock: false, door: ["driver", "passenger", "rear_left", "rear_right"] });
    expect(car.invoke("startEngine", [], { ignitionMode: "START" })).toEqual({ error: "Brake pedal needs to be pressed when starting the engine." });
    car.invoke("pressBrakePedal", [], { pedalPosition: 1 });
    expect(car.invoke("startEngine", [], { ignitionMode: "START" })).toEqual({ engineState: "running", fuelLevel: 0, batteryVoltage: 12.6 });
  });

  it("formats results and failures as the leaderboard's executor does", () => {
    const environment = new MultiTurnEnvironment({ involvedClasses: ["MathAPI", "TravelAPI"], initialConfig: {} });
    expect(environment.executeSource("add(a=1, b=2.5)")).toBe('{"result":3.5}');
    expect(environment.executeSource("divide(a=1, b=0)")).toBe('{"error":"Cannot divide by zero"}');
    expect(environment.executeSource("get_flight_cost(travel_from='SFO', travel_to='XXX', travel_date='2024-01-01', travel_class='economy')")).toBe(
      "Error during execution: No available route for the given airports.",
    );
    expect(environment.executeSource("nothing_here()")).toBe("Error during execution: name 'nothing_here' is not defined");
    expect(environment.executeSource("kill(pid=1)")).toBe("Error during execution: Function call kill is not allowed.");
  });

  it("fails a turn on a state difference, a missing result, or no call at all", () => {
    const caseData = multiTurnCases("multi_turn_base")[0]!;
    const silent = new MultiTurnChecker(caseData);
    expect(silent.finishTurn(0).errorType).toBe("multi_turn:empty_turn_model_response");

    const wrongState = new MultiTurnChecker(caseData);
    wrongState.executeModelCall("cd", { folder: "document" });
    wrongState.executeModelCall("mkdir", { dir_name: "elsewhere" });
    const stateCheck = wrongState.finishTurn(0);
    expect(stateCheck.errorType).toBe("multi_turn:instance_state_mismatch");
    expect(stateCheck.stateDifferences).toEqual(["GorillaFileSystem.root"]);

    expect(missingResults(["a", "b", "b"], ["b", "a", "c"])).toEqual(["b"]);
  });

  it("offers the APIs as tools that run on the case's instances and record what ran", async () => {
    const caseData = multiTurnCases("multi_turn_base")[0]!;
    const checker = new MultiTurnChecker(caseData);
    const recorder = new CallRecorder();
    const tools = statefulApiTools(caseData.functions, new ToolNameMap(caseData.functions.map((doc) => doc.name)), checker, recorder);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const cd = byName.get("cd")!;
    const mkdir = byName.get("mkdir")!;
    const context = { signal: new AbortController().signal, store: undefined as never, now: () => new Date(0), timeZone: "UTC", dryRun: false };
    // The agent validates before it runs: a folder must be text.
    expect(cd.input.safeParse({ folder: 3 }).success).toBe(false);
    expect(await cd.run(cd.input.parse({ folder: "document" }), context)).toContain("document");
    expect(await mkdir.run(mkdir.input.parse({ dir_name: "temp" }), context)).toBe("None");
    expect(String(await cd.run({ folder: "nowhere" }, context))).toContain("No such file or directory");
    expect(recorder.calls.map((call) => call.name)).toEqual(["cd", "mkdir", "cd"]);
    // The model's side of the checker saw those calls: after the ground truth's cd and mkdir the states agree.
    checker.groundTruth.executeSource("cd(folder='document')");
    checker.groundTruth.executeSource("mkdir(dir_name='temp')");
    expect(compareStates(checker.model.state(), checker.groundTruth.state())).toEqual([]);
  });
});
