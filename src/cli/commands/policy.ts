import type { Command } from "commander";
import { Profile } from "../../apps/profile.js";
import { policyPath } from "../../config.js";
import { InvalidInputError } from "../../errors.js";
import { ApprovalStore } from "../../policy/approvals.js";
import { StoreContactDirectory } from "../../policy/contacts.js";
import { PolicyGate } from "../../policy/gate.js";
import { BUILT_IN_RULES, Policy } from "../../policy/policy.js";
import { previewCall } from "../../policy/preview.js";
import { describeRule } from "../../policy/rules.js";
import { RISKS } from "../../tools/tool.js";

export function registerPolicyCommand(program: Command): void {
  const policy = program.command("policy").description("Show the permission rules, or check what they decide for a call");

  policy
    .command("show")
    .description("Print the rules in force: yours (BOTPSY_HOME/policy.json), the built-in ones, the defaults per risk, and standing approvals")
    .option("--json", "print JSON")
    .action((options: { json?: boolean }) => {
      const path = policyPath();
      const rules = Policy.load(path);
      const profile = Profile.open();
      try {
        const standing = new ApprovalStore(profile.store).standingRules();
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ path, ...rules.toJSON(), standingApprovals: standing }, null, 2)}\n`);
          return;
        }
        const lines = [`Policy file: ${path}${rules.source ? "" : " (absent: the defaults apply)"}`, "", "Your rules (deny beats ask beats allow):"];
        if (rules.rules.length === 0) lines.push("  (none)");
        rules.rules.forEach((rule, index) => lines.push(`  ${rule.name ?? `rules[${index}]`}: ${describeRule(rule)}`));
        lines.push("", "Built-in rules (used when none of yours matches):");
        for (const rule of BUILT_IN_RULES) lines.push(`  ${rule.name}: ${describeRule(rule)}`);
        lines.push("", "Defaults by risk (when no rule matches):");
        for (const risk of RISKS) lines.push(`  ${risk}: ${rules.defaults[risk]}`);
        lines.push("", `Arguments that come from untrusted content: ${rules.untrustedArguments}`);
        lines.push(`Calls per run before the next asks: ${Object.entries(rules.perRunLimits).map(([risk, limit]) => `${risk} ${limit}`).join(", ")}`);
        lines.push("", "Standing approvals (\"always\"):");
        if (standing.length === 0) lines.push("  (none)");
        for (const { rule } of standing) lines.push(`  ${rule.name}: ${describeRule(rule)}`);
        process.stdout.write(`${lines.join("\n")}\n`);
      } finally {
        profile.close();
      }
    });

  policy
    .command("check")
    .description('What the gate decides for one call, e.g. botpsy policy check send_message \'{"to":"Frank","text":"hi"}\'')
    .argument("<tool>", "tool name")
    .argument("[json-args]", "the arguments as a JSON object", "{}")
    .option("--session <id>", "check as part of this session (its approvals count)")
    .option("--json", "print JSON")
    .action(async (toolName: string, jsonArgs: string, options: { session?: string; json?: boolean }) => {
      let args: unknown;
      try {
        args = JSON.parse(jsonArgs) as unknown;
      } catch (error) {
        throw new InvalidInputError(`The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}). Write them as an object, e.g. '{"to":"Frank"}'.`);
      }
      if (args === null || typeof args !== "object" || Array.isArray(args)) {
        throw new InvalidInputError(`The arguments must be a JSON object such as '{"to":"Frank"}', not ${jsonArgs}.`);
      }
      const profile = Profile.open();
      try {
        const tool = profile.tools().find((candidate) => candidate.name === toolName);
        if (!tool) {
          throw new InvalidInputError(`There is no tool "${toolName}". See the tools with "botpsy apps".`, { code: "unknown_tool" });
        }
        const gate = new PolicyGate({ policy: Policy.load(), approvals: new ApprovalStore(profile.store), contacts: new StoreContactDirectory(profile.store) });
        const call = { id: "check", name: tool.name, arguments: args as Record<string, unknown> };
        const verdict = gate.explain(
          { call, app: tool.app, risk: tool.risk, sessionId: options.session, userText: "", untrustedContent: [] },
          { consume: false },
        );
        const preview = verdict.decision === "deny" ? undefined : await previewCall({ store: profile.store, now: profile.environment.now, timeZone: profile.environment.timeZone }, tool, call.arguments);
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ tool: tool.name, app: tool.app, risk: tool.risk, decision: verdict.decision, reason: verdict.reason, rule: verdict.rule ?? null, preview: preview?.text ?? null }, null, 2)}\n`);
          return;
        }
        process.stdout.write(`${verdict.decision.toUpperCase()} ${tool.name} (${tool.risk}${tool.app ? `, app ${tool.app}` : ""})\n  why: ${verdict.reason}\n`);
        if (preview) process.stdout.write(`  what it would do: ${preview.text}\n`);
      } finally {
        profile.close();
      }
    });
}
