// A minimal Server-Sent Events reader over fetch, for black-box tests.
export interface SseEvent {
  id?: string;
  event?: string;
  data: any;
}

export interface SseStream {
  /** Resolves with the next `count` events, or rejects after `timeoutMs`. */
  take(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  let notify: (() => void) | undefined;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: SseEvent = { data: undefined };
          for (const line of frame.split('\n')) {
            if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
          }
          if (event.data !== undefined) {
            events.push(event);
            notify?.();
          }
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    async take(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} SSE events, got ${events.length}`);
        await new Promise<void>((r) => {
          notify = r;
          setTimeout(r, 100);
        });
      }
      return events.splice(0, count);
    },
    close: () => controller.abort(),
  };
}
