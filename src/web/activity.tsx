import { useEffect, useState } from "preact/hooks";
import { getJson, postJson, type AuditEntry, type AuditVerification } from "./api.js";

function describe(entry: AuditEntry): string {
  const data = entry.data as Record<string, unknown> | null;
  if (entry.kind === "decision" && data) return `${entry.tool ?? ""}: ${String(data.verdict ?? data.decision ?? "")}`;
  if (entry.kind === "approval" && data) return `${entry.tool ?? ""}: ${data.approved ? `approved (${String(data.scope)})` : "denied"}`;
  const text = JSON.stringify(data);
  return `${entry.tool ? `${entry.tool}: ` : ""}${text.length > 120 ? `${text.slice(0, 117)}…` : text}`;
}

/** What botpsy did: undo of the last action, and the audit log with its hash-chain verification. */
export function Activity({ refresh, onActed }: { refresh: number; onActed: () => void }) {
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [verification, setVerification] = useState<AuditVerification | undefined>();
  const [status, setStatus] = useState<string>("");
  const load = (): void => {
    getJson<{ entries: AuditEntry[] }>("/v1/audit?limit=200").then((answer) => setEntries([...answer.entries].reverse()), (error: Error) => setStatus(error.message));
  };
  useEffect(load, [refresh]);

  const undo = async (): Promise<void> => {
    try {
      const answer = await postJson<{ undone: { tool: string; changeCount: number }[] }>("/v1/undo", { count: 1 });
      setStatus(answer.undone.length === 0 ? "Nothing to undo." : `Undone: ${answer.undone.map((action) => action.tool).join(", ")}.`);
      onActed();
    } catch (error) {
      setStatus(error instanceof Error ? error.message : String(error));
    }
  };
  const verify = async (): Promise<void> => {
    try {
      setVerification(await getJson<AuditVerification>("/v1/audit/verify"));
    } catch (error) {
      setStatus(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <div class="activity">
      <section class="panel" aria-labelledby="undo-heading">
        <h2 id="undo-heading">Undo</h2>
        <p>Reverts the last action botpsy took on your apps.</p>
        <button type="button" class="primary" onClick={() => void undo()}>
          Undo last action
        </button>
        <p role="status" class="status">
          {status}
        </p>
      </section>
      <section class="panel" aria-labelledby="audit-heading">
        <h2 id="audit-heading">Audit log</h2>
        <button type="button" onClick={() => void verify()}>
          Verify the log
        </button>
        {verification ? (
          <p role="status" class={verification.ok ? "verified" : "problem"}>
            {verification.ok ? `Intact: ${verification.checked} entries chain.` : `Broken at entry ${verification.brokenAt}: ${verification.problem ?? ""}`}
          </p>
        ) : null}
        <ol class="audit">
          {entries.map((entry) => (
            <li key={entry.seq}>
              <span class="audit-seq">#{entry.seq}</span> <time dateTime={entry.at}>{entry.at.replace("T", " ").slice(0, 19)}</time> <span class={`audit-kind kind-${entry.kind}`}>{entry.kind}</span> <span class="audit-what">{describe(entry)}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
