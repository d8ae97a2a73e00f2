// Black-box differential: a subscription document sent over graphql-ws meets the same GraphQL limits (characters,
// tokens, aliases, directives, depth, cost) as the same text sent over HTTP: refused with the same code and message,
// or accepted and delivering events. Reproduce with WS_LIMITS_SEED=<seed>; WS_LIMITS_RUNS raises the runs (default 4).
import fc from 'fast-check';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const SEED = Number(process.env.WS_LIMITS_SEED ?? 20261126);
const RUNS = Number(process.env.WS_LIMITS_RUNS ?? 4);
/** Documents per run, all subscribed on one socket and settled by the same writes. */
const PER_RUN = 10;

const field = fc.constantFrom('id', 'type', 'resourceType', 'resourceId', 'projectId', 'version', 'occurredAt');
/** One selection: plain, aliased, or carrying `@include(if: true)` directives; aliases and directives near their limits. */
const selection = fc.oneof(
  field,
  fc.tuple(fc.nat(99), field).map(([i, f]) => `a${i}: ${f}`),
  fc.tuple(field, fc.integer({ min: 1, max: 12 })).map(([f, n]) => `${f}${' @include(if: true)'.repeat(n)}`),
);
/** A subscription with up to ~40 selections, optionally padded with repeated fields (tokens) or a comment (characters). */
const subscription = fc
  .record({
    selections: fc.array(selection, { minLength: 1, maxLength: 40 }),
    padding: fc.oneof(fc.constant(0), fc.integer({ min: 100, max: 1_100 })),
    comment: fc.oneof(fc.constant(0), fc.integer({ min: 10_000, max: 16_000 })),
  })
  .map(({ selections, padding, comment }) => {
    const uniqueAliases = [...new Set(selections)].join(' ');
    return (
      (comment ? `# ${'c'.repeat(comment)}\n` : '') +
      `subscription { events(projectId: "default") { ${uniqueAliases}${' id'.repeat(padding)} } }`
    );
  });

type Verdict = { refused: string } | { accepted: true };

describe('GraphQL limits over graphql-ws', () => {
  const fx = useService({ env: UNLIMITED });

  /** HTTP's verdict on the same text: its limit refusal, or the refusal every within-limits subscription gets there. */
  const overHttp = async (query: string): Promise<Verdict> => {
    const res = await fetch(`${fx.service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fx.token}` },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as {
      errors: { message: string; extensions: { code: string; details?: { transport?: string } } }[];
    };
    const [error] = body.errors;
    if (error.extensions.details?.transport === 'graphql-ws') return { accepted: true };
    return { refused: `${error.extensions.code}: ${error.message}` };
  };

  /** The socket's verdict for each document: an error (its code and message), or an event delivered. */
  const overSocket = async (queries: string[]): Promise<Verdict[]> => {
    const client = createClient({
      url: fx.service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${fx.token}` },
      retryAttempts: 0,
    });
    const verdicts: (Verdict | undefined)[] = queries.map(() => undefined);
    const disposers = queries.map((query, i) =>
      client.subscribe(
        { query },
        {
          next: () => (verdicts[i] ??= { accepted: true }),
          error: (errors) => {
            const [first] = (Array.isArray(errors) ? errors : []) as {
              message: string;
              extensions?: { code?: string };
            }[];
            verdicts[i] ??= {
              refused: first?.extensions?.code
                ? `${first.extensions.code}: ${first.message}`
                : `unexpected: ${errors instanceof Error ? errors.message : JSON.stringify(errors, ['code', 'reason', 'message'])}`,
            };
          },
          complete: () => undefined,
        },
      ),
    );
    // Writes until every subscription has either been refused or seen an event (registration is asynchronous).
    const deadline = Date.now() + 10_000;
    while (verdicts.includes(undefined) && Date.now() < deadline) {
      await fx.api.call('POST', `/app/v1${PROJECT}/tags`, {
        token: fx.token,
        body: { name: `ws-limits-${Date.now()}-${Math.random()}` },
      });
      await new Promise((r) => setTimeout(r, 100));
    }
    disposers.forEach((dispose) => dispose());
    await client.dispose();
    return verdicts.map((v) => v ?? { refused: 'no answer' });
  };

  it('refuses over the socket exactly what HTTP refuses, with the same message (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(subscription, { minLength: PER_RUN, maxLength: PER_RUN }), async (queries) => {
        const expected = await Promise.all(queries.map(overHttp));
        expect(await overSocket(queries)).toEqual(expected);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The generator reached both sides of the limits.
    const sample = fc.sample(subscription, { numRuns: 40, seed: SEED });
    const verdicts = await Promise.all(sample.map(overHttp));
    expect(verdicts.some((v) => 'accepted' in v)).toBe(true);
    expect(verdicts.filter((v) => 'refused' in v).length).toBeGreaterThan(5);
  });
});
