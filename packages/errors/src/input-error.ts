// Safety net: a database refusing a value the client sent (SQLSTATE class 22, NUL bytes) is the client's 400, not a 500.
import { BadRequestError } from './app-error';

/**
 * SQLSTATE class 22 ("data exception": out-of-range numbers and dates, invalid text, NUL bytes in parameters),
 * 08P01 (a NUL byte inlined in a statement's text) and 54001 (a statement too complex to plan) only arise from
 * values in the request. The edge refuses such input before it reaches a service; this catches any
 * route that slips through, without naming SQL.
 */
const INPUT_SQLSTATE = /^(22[0-9A-Z]{3}|08P01|54001)$/;

export function inputErrorOf(err: unknown): BadRequestError | undefined {
  const seen = new Set<unknown>();
  let current = err as { code?: unknown; sqlState?: unknown; originalError?: unknown; cause?: unknown } | undefined;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const state = typeof current.sqlState === 'string' ? current.sqlState : current.code;
    if (typeof state === 'string' && INPUT_SQLSTATE.test(state)) {
      return new BadRequestError('A value in the request is out of range or not acceptable text.', {
        reason: `SQLSTATE ${state}`,
      });
    }
    current = (current.originalError ?? current.cause) as typeof current;
  }
  return undefined;
}
