import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, parseLimit, parseOffsetArgs } from './pagination';

describe('cursors', () => {
  it('round-trips a position and looks opaque', () => {
    const cursor = encodeCursor({ value: '2026-01-01T00:00:00.000Z', id: 'abc' });
    expect(cursor).not.toMatch(/abc|2026/);
    expect(decodeCursor(cursor)).toEqual({ value: '2026-01-01T00:00:00.000Z', id: 'abc' });
  });

  it('rejects tampered, truncated and foreign cursors with BAD_REQUEST naming the parameter', () => {
    const cursor = encodeCursor({ value: '2026-01-01T00:00:00.000Z', id: 'abc' });
    const [payload, sum] = cursor.split('.');
    const flipped = `${payload.slice(0, -1)}${payload.at(-1) === 'A' ? 'B' : 'A'}.${sum}`;
    for (const bad of [flipped, payload, `${cursor}.x`, '', 'eyJ9', Buffer.from('[1,2]').toString('base64url')]) {
      expect(() => decodeCursor(bad, 'afterKey'), bad).toThrowError(
        expect.objectContaining({ code: 'BAD_REQUEST', details: { parameter: 'afterKey' } }),
      );
    }
  });

  it('bounds limit to 1..100 with default 20, and page to ≥ 1', () => {
    expect(parseLimit(undefined)).toBe(20);
    expect(parseLimit(100)).toBe(100);
    for (const bad of [0, 101, -1, 2.5])
      expect(() => parseLimit(bad)).toThrowError(
        expect.objectContaining({ details: expect.objectContaining({ parameter: 'limit' }) }),
      );
    expect(parseOffsetArgs({})).toEqual({ page: 1, limit: 20, offset: 0 });
    expect(parseOffsetArgs({ page: 3, limit: 10 })).toEqual({ page: 3, limit: 10, offset: 20 });
    expect(() => parseOffsetArgs({ page: 0 })).toThrowError(
      expect.objectContaining({ details: expect.objectContaining({ parameter: 'page' }) }),
    );
  });
});
