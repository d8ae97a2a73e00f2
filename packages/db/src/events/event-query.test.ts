// Event cursors: positions stay within PostgreSQL's bigint, so a resume never fails after it started.
import { encodeCursor } from '../pagination';
import { describe, expect, it } from 'vitest';
import { positionOf } from './event-query';

describe('positionOf', () => {
  it('reads positions of up to 18 digits and refuses longer ones with BAD_REQUEST naming the parameter', () => {
    expect(positionOf(encodeCursor({ value: '9'.repeat(18), id: 'e' }))).toBe(999999999999999999n);
    for (const value of ['9'.repeat(19), '99999999999999999999999', '-1', '1e3', '']) {
      expect(() => positionOf(encodeCursor({ value, id: 'e' }), 'Last-Event-ID'), value).toThrowError(
        expect.objectContaining({ code: 'BAD_REQUEST', details: { parameter: 'Last-Event-ID' } }),
      );
    }
  });
});
