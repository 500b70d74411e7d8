import { describe, expect, it } from "vitest";
import { harnessAgentOptions, parseHarness } from "../../src/eval/harness.js";

describe("eval --harness switches", () => {
  it("parses each switch into the agent option it stands for", () => {
    const harness = parseHarness("router=auto, pruning=off,forced-tools=3,compose-answers=off");
    expect(harness).toEqual({ router: "auto", pruning: "off", forcedTools: 3, composeAnswers: "off" });
    expect(harnessAgentOptions(harness)).toEqual({ firstStepToolChoice: "auto", argumentPruning: false, forcedTurnTools: 3, composeUnreadableAnswers: false });
    expect(harnessAgentOptions(parseHarness("pruning=all,forced-tools=off"))).toEqual({ argumentPruning: { turns: "all" }, forcedTurnTools: false });
    expect(harnessAgentOptions(parseHarness("pruning-scope=call"))).toEqual({ argumentPruning: { scope: "call" } });
    expect(harnessAgentOptions(parseHarness("recovery=on"))).toEqual({ recoveryRouting: true });
    expect(harnessAgentOptions(parseHarness("resume=on,numbers=held"))).toEqual({ resumeAfterRecovery: true, numberHolding: true });
    expect(harnessAgentOptions(parseHarness("resume=off,numbers=free"))).toEqual({ resumeAfterRecovery: false, numberHolding: false });
    expect(harnessAgentOptions(parseHarness("failures=retry"))).toEqual({ endRepeatedFailure: false });
    expect(harnessAgentOptions(parseHarness("failures=end,repeats=run"))).toEqual({ endRepeatedFailure: true, endRepeatedSuccess: false });
  });

  it("records nothing when nothing is switched, so the run's settings match a plain run's", () => {
    expect(parseHarness(undefined)).toBeUndefined();
    expect(parseHarness("  ")).toBeUndefined();
    expect(harnessAgentOptions(undefined)).toEqual({});
  });

  it.each(["router=maybe", "pruning", "forced-tools=0", "colour=blue", "router=auto=x", "pruning-scope=grammar", "toString=x", "numbers=on", "resume=held", "failures=stop"])("refuses %s with the list of switches", (text) => {
    expect(() => parseHarness(text)).toThrow(/router=route\|auto\|required\|none.*pruning-scope=prompt\|call.*compose-answers=on\|off, recovery=on\|off/);
  });
});
