/**
 * Where the text is cut: at the stop sequence that is complete first (as a
 * model generating the text token by token would meet it), the longest one
 * when several end at the same character; -1 when none occurs. The answer
 * does not depend on how the text was split into deltas.
 */
export function firstCompletedStop(text: string, sequences: readonly string[]): number {
  let cut = -1;
  let cutEnd = Infinity;
  for (const sequence of sequences) {
    const at = text.indexOf(sequence);
    if (at === -1) continue;
    const end = at + sequence.length;
    if (end < cutEnd || (end === cutEnd && at < cut)) {
      cut = at;
      cutEnd = end;
    }
  }
  return cut;
}

/**
 * Cuts streamed text at the first stop sequence. Text that could still turn
 * out to be the start of a stop sequence is held back until the next delta
 * decides, so a client never sees part of a stop sequence.
 */
export class StopSequenceScanner {
  private readonly sequences: readonly string[];
  private readonly holdBack: number;
  private pending = "";
  private stoppedFlag = false;

  constructor(sequences: readonly string[]) {
    this.sequences = sequences.filter((sequence) => sequence !== "");
    this.holdBack = Math.max(0, ...this.sequences.map((sequence) => sequence.length - 1));
  }

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Text that may be shown now; after a stop sequence is found, always "". */
  push(delta: string): string {
    if (this.stoppedFlag) return "";
    if (this.sequences.length === 0) return delta;
    this.pending += delta;
    const cut = firstCompletedStop(this.pending, this.sequences);
    if (cut !== -1) {
      this.stoppedFlag = true;
      const shown = this.pending.slice(0, cut);
      this.pending = "";
      return shown;
    }
    const safe = this.pending.length - this.holdBack;
    if (safe <= 0) return "";
    const shown = this.pending.slice(0, safe);
    this.pending = this.pending.slice(safe);
    return shown;
  }

  /** The held-back text, once the generation ended without a stop sequence. */
  flush(): string {
    const rest = this.stoppedFlag ? "" : this.pending;
    this.pending = "";
    return rest;
  }
}
