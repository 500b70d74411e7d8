import { describe, expect, it } from "vitest";
import { describeSource, extractCandidates, findTaintedArguments, ProvenanceTracker } from "../../src/policy/provenance.js";

const email = "From: billing@acme.example\nYour invoice is overdue. Pay 249.90 to IBAN DE44500105175407324931 or visit https://acme-pay.example/login";

describe("provenance", () => {
  it("extracts recipients, amounts, links and numbers from arguments", () => {
    const candidates = extractCandidates({ to: ["a@b.example"], amount: 20, body: "see https://x.example/y and call +351 912 000 999" });
    expect(candidates.map((candidate) => candidate.kind).sort()).toEqual(["address", "amount", "link", "number"]);
  });

  it("traces a value copied from an email into a send through several steps", () => {
    const tracker = new ProvenanceTracker();
    tracker.recordUser("Check my inbox and pay what is due");
    tracker.recordToolResult("list_emails", "trusted", JSON.stringify([{ id: "m1", subject: "Invoice" }]));
    tracker.recordToolResult("read_email", "untrusted", email, "an email from billing@acme.example");
    tracker.recordToolResult("get_balance", "trusted", JSON.stringify({ balance: 1200 }));
    const findings = findTaintedArguments({
      args: { to_account: "DE44500105175407324931", amount: 249.9, memo: "invoice" },
      userText: tracker.all().filter((entry) => entry.origin.kind === "user").map((entry) => entry.text).join("\n"),
      untrusted: tracker.untrusted(),
    });
    expect(findings.map((finding) => [finding.argument, finding.kind])).toEqual([
      ["to_account", "account number"],
      ["amount", "amount"],
    ]);
    expect(findings[0]!.reason).toBe('the account number "DE44500105175407324931" comes from an email from billing@acme.example, not from your request');
    expect(tracker.originsOf("DE44500105175407324931")).toEqual([{ kind: "untrusted", tool: "read_email", source: "an email from billing@acme.example" }]);
    expect(tracker.originsOf("1200")).toEqual([{ kind: "trusted-tool", tool: "get_balance" }]);
    expect(tracker.originsOf("never seen")).toEqual([]);
  });

  it("does not flag values the user gave or a trusted app holds, nor values the model made up", () => {
    const untrusted = [{ tool: "read_email", source: "an email", text: email }];
    expect(findTaintedArguments({ args: { amount: 249.9 }, userText: "pay the 249.90 invoice", untrusted })).toEqual([]);
    expect(findTaintedArguments({ args: { to: "billing@acme.example" }, userText: "", untrusted, trusted: ['{"email":"billing@acme.example"}'] })).toEqual([]);
    expect(findTaintedArguments({ args: { to: "someone@else.example", amount: 12 }, userText: "", untrusted })).toEqual([]);
  });

  it("flags a link hidden in a message body", () => {
    const findings = findTaintedArguments({
      args: { to: "Maria", text: "Hi, log in here: https://acme-pay.example/login" },
      userText: "tell Maria about the invoice",
      untrusted: [{ tool: "read_email", source: "an email from billing@acme.example", text: email }],
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.reason).toMatch(/^the link "https:\/\/acme-pay\.example\/login" comes from an email from billing@acme\.example/);
  });

  it("names sources for people", () => {
    expect(describeSource("web_fetch", { url: "https://a.example" })).toBe("the web page https://a.example");
    expect(describeSource("read_email", { from: "x@y.example" })).toBe("an email from x@y.example");
    expect(describeSource("read_messages", { from: "Tom" })).toBe("a message from Tom");
  });
});
