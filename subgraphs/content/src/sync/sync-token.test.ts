// Sync tokens: what was signed opens unchanged for its own project and view; any alteration or other binding is a 400.
import { AppError } from '@cp/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SyncTokens, type SyncBinding, type SyncCursor } from './sync-token';

const runs = { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: Number(process.env.FC_RUNS ?? 300) };
const tokens = new SyncTokens(new TextEncoder().encode('a service secret of at least thirty-two characters'));

const position = fc.bigInt({ min: 0n, max: 2n ** 62n }).map(String);
const name = fc.string({ minLength: 1, maxLength: 12 });
const binding = fc.record(
  {
    organizationId: name,
    projectId: name,
    view: fc.constantFrom('published' as const, 'preview' as const),
    typeId: name,
    locale: name,
  },
  { requiredKeys: ['organizationId', 'projectId', 'view'] },
);
const cursor: fc.Arbitrary<SyncCursor> = fc.oneof(
  fc.record({ kind: fc.constant('snapshot' as const), at: position, after: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant('delta' as const), after: position }),
  fc.record({ kind: fc.constant('caught-up' as const), at: position }),
);
const parameterOf = (c: SyncCursor) => (c.kind === 'caught-up' ? 'syncToken' : 'pageToken');

/** The 400 `open` throws, or undefined when it accepted the token. */
function refusal(run: () => unknown): AppError | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

describe('sync tokens', () => {
  it('open what they signed, for the same project and view', () => {
    fc.assert(
      fc.property(binding, cursor, (b: SyncBinding, c) => {
        const token = tokens.sign(b, c);
        const opened = tokens.open(token, parameterOf(c), { ...b });
        expect(opened.cursor).toEqual(c);
        expect(opened.binding).toEqual(b);
      }),
      runs,
    );
  });

  it('refuse any altered token with 400 BAD_REQUEST', () => {
    fc.assert(
      fc.property(
        binding,
        cursor,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 3 }),
        (b: SyncBinding, c, at, insert) => {
          const token = tokens.sign(b, c);
          const i = at % token.length;
          const altered = token.slice(0, i) + insert + token.slice(i + 1);
          fc.pre(altered !== token);
          const error = refusal(() => tokens.open(altered, parameterOf(c), { ...b }));
          // base64url's last character may carry unused bits: an alteration that decodes to the same bytes is the same token.
          if (error === undefined) {
            const [body, mac] = altered.split('.');
            expect(
              Buffer.from(body!, 'base64url').toString('base64url') +
                '.' +
                Buffer.from(mac!, 'base64url').toString('base64url'),
            ).toBe(token);
            return;
          }
          expect(error.code).toBe('BAD_REQUEST');
          expect(error.details).toMatchObject({ parameter: parameterOf(c), reason: 'invalid' });
        },
      ),
      runs,
    );
  });

  it('refuse a token of another project, organization or view, and a token of the other kind', () => {
    fc.assert(
      fc.property(
        binding,
        cursor,
        fc.constantFrom('organizationId', 'projectId', 'view'),
        (b: SyncBinding, c, member) => {
          const token = tokens.sign(b, c);
          const other =
            member === 'view'
              ? { ...b, view: b.view === 'published' ? ('preview' as const) : ('published' as const) }
              : { ...b, [member]: `${b[member]}x` };
          const foreign = refusal(() => tokens.open(token, parameterOf(c), other));
          expect(foreign?.code).toBe('BAD_REQUEST');
          expect(foreign?.details).toMatchObject({ reason: 'foreign' });
          const otherKind = parameterOf(c) === 'syncToken' ? 'pageToken' : 'syncToken';
          const wrongKind = refusal(() => tokens.open(token, otherKind, b));
          expect(wrongKind?.details).toMatchObject({ parameter: otherKind, reason: 'wrong-kind' });
        },
      ),
      runs,
    );
  });

  it('refuse tokens signed under another secret', () => {
    const other = new SyncTokens(new TextEncoder().encode('another service secret, also thirty-two characters'));
    const b: SyncBinding = { organizationId: 'o', projectId: 'p', view: 'published' };
    const token = other.sign(b, { kind: 'caught-up', at: '42' });
    expect(refusal(() => tokens.open(token, 'syncToken', b))?.details).toMatchObject({ reason: 'invalid' });
    for (const junk of ['', '.', 'abc', 'a.b.c', '{}.e30'])
      expect(refusal(() => tokens.open(junk, 'syncToken', b))?.code).toBe('BAD_REQUEST');
  });
});
