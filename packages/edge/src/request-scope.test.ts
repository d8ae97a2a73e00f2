// The request scope's logger: a child bound to the request id, made only when something logs.
import { createLogger } from '@cp/config';
import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { currentScope, requestScope } from './request-scope';

function run(logger: ReturnType<typeof createLogger>, read: boolean) {
  const headers: Record<string, string> = { 'x-request-id': 'req-1' };
  const res = { setHeader: vi.fn() } as unknown as Response;
  let bindings: Record<string, unknown> | undefined;
  requestScope(logger)({ method: 'GET', headers } as unknown as Request, res, (() => {
    if (read) bindings = currentScope()!.logger.bindings();
  }) as NextFunction);
  return bindings;
}

describe('requestScope logger', () => {
  it('is a child bound to the request id, the same one on every read', () => {
    const logger = createLogger({ logLevel: 'warn' });
    expect(run(logger, true)).toMatchObject({ requestId: 'req-1' });
    requestScope(logger)(
      { method: 'GET', headers: {} } as unknown as Request,
      { setHeader: vi.fn() } as unknown as Response,
      (() => expect(currentScope()!.logger).toBe(currentScope()!.logger)) as NextFunction,
    );
  });

  it('is not made when nothing logs', () => {
    const logger = createLogger({ logLevel: 'warn' });
    const child = vi.spyOn(logger, 'child');
    run(logger, false);
    expect(child).not.toHaveBeenCalled();
    run(logger, true);
    expect(child).toHaveBeenCalledTimes(1);
  });
});
