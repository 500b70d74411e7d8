/**
 * Where a command's approval decisions come from: a standing decision
 * (`--yes`, `--approve yes|no`), the terminal (`[y/N]`), or lines on a pipe, so
 * scripts can approve or decline. With none of them the run pauses and can be
 * resumed later with `botpsy resume <run id> --approve yes|no`.
 */
import { createInterface } from "node:readline";
import type { AgentOutcome } from "../agent/types.js";
import { InvalidInputError } from "../errors.js";

/** A decision made before the run, for every call that needs approval. */
export interface ApprovalAnswer {
  approved: boolean;
  /** What made it, for the one line printed per call ("--yes", "--approve no"). */
  source: string;
}

/** `--approve yes|no` (and `--yes`, the same as `--approve yes`); undefined when neither is given. */
export function parseApproveOption(options: { yes?: boolean; approve?: string }): ApprovalAnswer | undefined {
  if (options.approve !== undefined) {
    const value = options.approve.trim().toLowerCase();
    if (value !== "yes" && value !== "no") throw new InvalidInputError(`--approve must be "yes" or "no", not "${options.approve}".`, { code: "invalid_option" });
    if (options.yes === true && value === "no") throw new InvalidInputError("--yes and --approve no contradict each other: give one of them.", { code: "invalid_option" });
    return { approved: value === "yes", source: `--approve ${value}` };
  }
  return options.yes === true ? { approved: true, source: "--yes" } : undefined;
}

/** A line-at-a-time reader of a stream; `undefined` once the stream has ended. Lines typed ahead are kept. */
export class LineReader {
  private readonly lines: AsyncIterator<string>;
  private readonly close: () => void;
  private ended = false;

  constructor(input: NodeJS.ReadableStream) {
    const reader = createInterface({ input, terminal: false });
    this.lines = reader[Symbol.asyncIterator]();
    this.close = () => reader.close();
  }

  async next(): Promise<string | undefined> {
    if (this.ended) return undefined;
    const next = await this.lines.next();
    if (next.done === true) {
      this.ended = true;
      return undefined;
    }
    return next.value;
  }

  dispose(): void {
    this.close();
  }
}

/**
 * The `ask` function for `decideApprovals`: the question goes to `prompt`
 * (stderr, so JSON on stdout stays clean) and the answer is the next line of
 * input; `undefined` when input has ended (nobody to ask).
 */
export function approvalAnswerSource(reader: LineReader, prompt: (text: string) => void): (question: string) => Promise<string | undefined> {
  return async (question) => {
    prompt(question);
    const line = await reader.next();
    if (line === undefined) prompt("(no answer: input ended)\n");
    return line;
  };
}

/** What to tell a user whose run paused for approval with nobody to ask. */
export function pausedMessage(outcome: AgentOutcome): string {
  const calls = outcome.pendingApprovals.map((request) => `  ${request.call.name}: ${request.preview}`).join("\n");
  return [
    `Paused: ${outcome.pendingApprovals.length === 1 ? "this call needs" : "these calls need"} your approval; nothing of ${outcome.pendingApprovals.length === 1 ? "it" : "them"} has run.`,
    calls,
    `Decide with: botpsy resume ${outcome.runId} --approve yes   (or --approve no)`,
    "In a script, pass --approve yes|no (or --yes), or pipe the answers (one y or n per line) to stdin.",
  ].join("\n");
}
