"""Successes of a results file at other call biases and forced-call floors, from the margins its cases recorded.

Usage: python3 grid.py RESULTS.jsonl   (a run at call bias 0 with margins recorded: every `eval run` records them)

A forced first turn (the router's "required" or named tool) is released when the
model's lead for writing a call (the smaller of the opening and following leads)
is below the floor T: the case then counts as an abstention (success exactly when
it is an abstention case). A free first turn calls at bias b when opening + b > 0
and following > 0; a call the bias-0 run made that bias b would not make counts as
an abstention. Everything after the first turn is the bias-0 run's.
"""
import json, sys

def load(path):
    cases = {}
    for line in open(path):
        record = json.loads(line)
        if record.get("type") == "case":
            cases[record["caseId"]] = record
    return list(cases.values())

def simulate(cases, b, T):
    calls = abstentions = 0
    for case in cases:
        first = case.get("firstTurn") or {}
        margin = first.get("callMargin")
        success = case["success"]
        if isinstance(margin, dict):
            lead = min(margin["opening"], margin["following"])
            if first["choice"] in ("required", "named"):
                if T is not None and lead < T:
                    success = case["abstainCase"]
            elif first["choice"] == "auto":
                at_zero = margin["opening"] > 0 and margin["following"] > 0
                at_bias = margin["opening"] + b > 0 and margin["following"] > 0
                if at_zero and not at_bias:
                    success = case["abstainCase"]
        if success:
            if case["abstainCase"]:
                abstentions += 1
            else:
                calls += 1
    return calls + abstentions, calls, abstentions

if __name__ == "__main__":
    cases = load(sys.argv[1])
    floors = [None, -1, -0.5, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3]
    print(f"{sys.argv[1]}: {len(cases)} cases; rows: call bias; columns: forced-call floor {floors}; cells: successes (calls/abstentions)")
    for b in [0, -1, -2, -3, -4, -6]:
        print(f"  b={b:>3} " + " ".join(f"{t:>2}({c}/{a})" for t, c, a in (simulate(cases, b, T) for T in floors)))
