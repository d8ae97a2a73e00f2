import { UnauthorizedError } from '@cp/errors';
import type { Context } from '@cp/principal';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { familyOnly } from './family-guard';

/** Runs the guard for a caller of `kind`: what reached `onError`, and whether the next handler ran. */
function guard(family: 'app' | 'api', kind: Context['principal']['kind']) {
  const errors: unknown[] = [];
  let passed = false;
  const res = { locals: { context: { principal: { kind } } } } as unknown as Response;
  familyOnly(family, (_res, err) => errors.push(err))({} as Request, res, () => (passed = true));
  return { errors, passed };
}

describe('familyOnly', () => {
  it("passes the family's own principal kind on", () => {
    expect(guard('app', 'user')).toEqual({ errors: [], passed: true });
    expect(guard('api', 'apiKey')).toEqual({ errors: [], passed: true });
  });

  it('answers any other kind 401 and stops there', () => {
    for (const [family, kind] of [
      ['app', 'apiKey'],
      ['app', 'anonymous'],
      ['api', 'user'],
      ['api', 'anonymous'],
    ] as const) {
      const { errors, passed } = guard(family, kind);
      expect(passed).toBe(false);
      expect(errors).toEqual([expect.any(UnauthorizedError)]);
    }
  });
});
