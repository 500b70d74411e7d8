/**
 * A progress bar with an ETA for long evaluation runs, written to a stream
 * (stderr). On a terminal it redraws one line; elsewhere (a log, CI) it
 * prints a line every few percent so logs stay short.
 */
export interface ProgressBarOptions {
  total: number;
  /** Default process.stderr. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  label?: string;
  /** Injected clock (milliseconds), for tests. */
  now?: () => number;
}

export function formatDuration(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return "--";
  const seconds = Math.round(milliseconds / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

export class ProgressBar {
  private readonly total: number;
  private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  private readonly label: string;
  private readonly now: () => number;
  private readonly started: number;
  private done = 0;
  private passed = 0;
  private lastPrintedPercent = -1;

  constructor(options: ProgressBarOptions) {
    this.total = options.total;
    this.stream = options.stream ?? process.stderr;
    this.label = options.label ?? "eval";
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  /** Count one finished case. */
  tick(success: boolean): void {
    this.done++;
    if (success) this.passed++;
    this.render();
  }

  /** The line as it is drawn now (without carriage control). */
  line(): string {
    const elapsed = this.now() - this.started;
    const fraction = this.total === 0 ? 1 : this.done / this.total;
    const eta = this.done === 0 ? Number.NaN : (elapsed / this.done) * (this.total - this.done);
    const width = 24;
    const filled = Math.round(fraction * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    return `${this.label} [${bar}] ${this.done}/${this.total} ${Math.floor(fraction * 100)}% | ${this.passed} passed | elapsed ${formatDuration(elapsed)} | ETA ${this.done === this.total ? "0s" : formatDuration(eta)}`;
  }

  private render(): void {
    if (this.stream.isTTY) {
      this.stream.write(`\r${this.line()}\u001b[K`);
      if (this.done === this.total) this.stream.write("\n");
      return;
    }
    const percent = this.total === 0 ? 100 : Math.floor((this.done / this.total) * 100);
    if (percent >= this.lastPrintedPercent + 5 || this.done === this.total) {
      this.lastPrintedPercent = percent;
      this.stream.write(`${this.line()}\n`);
    }
  }
}
