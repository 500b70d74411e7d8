import type { AgentEvent } from "../agent/types.js";

/** One event of a run as the API numbers it: `id` is the SSE event id a client reattaches from. */
export interface NumberedRunEvent {
  id: number;
  type: string;
  data: string;
}

interface RunEntry {
  events: NumberedRunEvent[];
  finished: boolean;
  /** Wakes the streams that wait for the next event. */
  waiters: Set<() => void>;
}

/**
 * The events of the server's recent runs, numbered, so that a client that
 * lost its stream (a page reload, a dropped connection) reattaches from the
 * last id it saw and misses nothing. A run keeps one numbering across its
 * pauses and resumes. Kept in memory for the last `capacity` runs; a run
 * paused before a restart is found in the profile's store instead.
 */
export class RunJournal {
  private readonly runs = new Map<string, RunEntry>();
  private readonly capacity: number;

  constructor(capacity = 64) {
    this.capacity = capacity;
  }

  /** Starts (or, on resume, continues) the journal of a run; returns the id of its "run" event, where this part of it begins. */
  open(runId: string): number {
    const entry = this.runs.get(runId);
    if (entry) {
      entry.finished = false;
      // Moved to the newest position, so an active run is not the one forgotten.
      this.runs.delete(runId);
      this.runs.set(runId, entry);
    } else {
      this.runs.set(runId, { events: [], finished: false, waiters: new Set() });
    }
    this.append(runId, "run", JSON.stringify({ runId }));
    const startId = this.runs.get(runId)!.events.length - 1;
    while (this.runs.size > this.capacity) {
      const oldest = [...this.runs].find(([, candidate]) => candidate.finished);
      if (!oldest) break;
      this.runs.delete(oldest[0]);
    }
    return startId;
  }

  append(runId: string, type: string, data: string): void {
    const entry = this.runs.get(runId);
    if (!entry) return;
    entry.events.push({ id: entry.events.length, type, data });
    this.wake(entry);
  }

  record(runId: string, event: AgentEvent): void {
    this.append(runId, event.type, JSON.stringify(event));
  }

  finish(runId: string): void {
    const entry = this.runs.get(runId);
    if (!entry) return;
    entry.finished = true;
    this.wake(entry);
  }

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  /**
   * The run's events after `afterId` (-1: from the start) as they come,
   * ending when the run has finished (or paused) and all were given, or when
   * `signal` aborts.
   */
  async *follow(runId: string, afterId: number, signal?: AbortSignal): AsyncGenerator<NumberedRunEvent> {
    const entry = this.runs.get(runId);
    if (!entry) return;
    let next = Math.max(0, afterId + 1);
    while (!signal?.aborted) {
      while (next < entry.events.length) yield entry.events[next++]!;
      if (entry.finished) return;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          entry.waiters.delete(wake);
          signal?.removeEventListener("abort", wake);
          resolve();
        };
        entry.waiters.add(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  private wake(entry: RunEntry): void {
    for (const waiter of [...entry.waiters]) waiter();
  }
}
