// Long-lived responses (SSE streams) that a shutdown must end cleanly rather than cut; also what metrics count.
export class LiveStreams {
  private readonly closers = new Set<() => void>();

  /** Registers a stream's closer; call the returned function when the stream ends on its own. */
  track(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  get size(): number {
    return this.closers.size;
  }

  /** Ends every open stream (each writes its last words and ends its response). */
  endAll(): void {
    for (const close of [...this.closers]) close();
    this.closers.clear();
  }
}
