/**
 * A buffered, single-consumer async iterable: the producer pushes without
 * waiting, the consumer may start late (every event is kept) or never.
 */
export class EventChannel<Event> implements AsyncIterable<Event> {
  private readonly buffered: Event[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  push(event: Event): void {
    if (this.closed) return;
    this.buffered.push(event);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Event> {
    let index = 0;
    while (true) {
      if (index < this.buffered.length) {
        yield this.buffered[index++]!;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}
