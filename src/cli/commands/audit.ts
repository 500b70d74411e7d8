import type { Command } from "commander";
import { Profile } from "../../apps/profile.js";
import { InvalidInputError } from "../../errors.js";
import { AuditLog, type AuditEntry } from "../../policy/audit.js";

function summary(entry: AuditEntry): string {
  const data = (entry.data ?? {}) as Record<string, unknown>;
  const tool = entry.tool ? ` ${entry.tool}` : "";
  switch (entry.kind) {
    case "decision":
      return `${String(data.decision)}${tool}(${JSON.stringify(data.arguments ?? {})}) by ${String(data.by ?? "rule")}: ${String(data.reason ?? "")}`;
    case "approval":
      return `${data.approved ? "approved" : "declined"} by you (${String(data.scope)})${tool}: ${String(data.preview ?? "")}`;
    case "result":
      return `ran${tool}`;
    case "error":
      return `not run or failed${tool}: ${JSON.stringify(data.error ?? data)}`;
    case "undo":
      return `undone${tool} (action #${String(data.actionId)})`;
    case "guard":
      return `guard${tool}: ${JSON.stringify(data.findings ?? data)}`;
    case "chain":
      return data.event === "rekeyed"
        ? `the log's ${String(data.entries)} earlier entries verified intact and were re-keyed`
        : `the log's ${String(data.entries)} earlier, unkeyed entries do not verify (${String(data.problem)}); kept unkeyed`;
    case "model-turn":
      return `model turn ${String(data.step)} ran on ${String(data.ranOn)}`;
    case "web-request":
      return `page fetched through peer ${String(data.lender)}: ${String(data.url)} (status ${String(data.status)})`;
  }
}

export function registerAuditCommand(program: Command): void {
  program
    .command("audit")
    .description("Print the audit log of calls, decisions, results and undos; --verify checks its keyed chain and its head")
    .option("--since <date>", "only entries at or after this date (ISO 8601, e.g. 2026-12-01)")
    .option("--session <id>", "only entries of this session")
    .option("--limit <n>", "at most this many entries")
    .option("--verify", "check that no entry was changed, inserted, forged or removed (exit code 1 when one was)")
    .option("--json", "print JSON")
    .action((options: { since?: string; session?: string; limit?: string; verify?: boolean; json?: boolean }) => {
      let since: Date | undefined;
      if (options.since !== undefined) {
        since = new Date(options.since);
        if (Number.isNaN(since.getTime())) throw new InvalidInputError(`--since "${options.since}" is not a date; write it as 2026-12-01 or 2026-12-01T09:00:00Z.`);
      }
      const limit = options.limit === undefined ? undefined : Number(options.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new InvalidInputError(`--limit must be a whole number of at least 1, not "${options.limit}".`);
      const profile = Profile.open();
      try {
        const audit = new AuditLog(profile.store);
        if (audit.notice !== undefined) process.stderr.write(`${audit.notice}\n`);
        if (options.verify) {
          const verification = audit.verify();
          if (options.json) process.stdout.write(`${JSON.stringify(verification, null, 2)}\n`);
          else if (verification.ok) process.stdout.write(`The audit log is intact: ${verification.checked} entries chain correctly.\n`);
          else {
            const intact = verification.brokenAt === undefined ? `${verification.checked} entries chain correctly` : `${verification.brokenAt - 1} entries before it are intact`;
            process.stdout.write(`The audit log was tampered with: ${verification.problem}. ${intact}.\n`);
          }
          if (!verification.ok) process.exitCode = 1;
          return;
        }
        const entries = audit.entries({ since, sessionId: options.session, limit });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
          return;
        }
        if (entries.length === 0) process.stdout.write("The audit log has no entries (for this filter).\n");
        for (const entry of entries) process.stdout.write(`#${entry.seq} ${entry.at} ${summary(entry)}\n`);
      } finally {
        profile.close();
      }
    });
}
