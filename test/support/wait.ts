// Waiting on a condition in black-box tests: polls until it holds instead of sleeping a fixed time.

export interface WaitOptions {
  /** How long the condition may take before the wait fails; 20 s by default. */
  timeoutMs?: number;
  /** The pause between probes; 50 ms by default. */
  intervalMs?: number;
}

type Found<T> = Exclude<T, undefined | null | false>;

/**
 * Probes until `probe` returns something other than `undefined`, `null` or `false`, and returns that value. Throws
 * naming `what` once `timeoutMs` has passed; `what` may be a function, read only then, to show state gathered meanwhile
 * (a process's output, the last answer).
 */
export async function waitFor<T>(
  what: string | (() => string),
  probe: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50 }: WaitOptions = {},
): Promise<Found<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value as Found<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
