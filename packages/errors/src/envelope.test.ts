import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  InvalidStatusTransitionError,
  NotFoundError,
  ValidationFailedError,
  negotiateLanguage,
  toErrorEnvelope,
} from './index';

const edge = { requestId: 'req-1', lang: 'en', variablesFrom: 'body' as const };

describe('toErrorEnvelope', () => {
  it('maps typed errors to their status with their details', () => {
    expect(toErrorEnvelope(new NotFoundError('Role', 'r1'), edge)).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'Role not found.', details: { resource: 'Role', id: 'r1' } } },
    });
    const t = toErrorEnvelope(new InvalidStatusTransitionError('draft', 'published'), edge);
    expect(t.status).toBe(409);
    expect(t.body.error.details).toEqual({ currentStatus: 'draft', requestedStatus: 'published' });
    expect(toErrorEnvelope(new ValidationFailedError([{ path: '/name', message: 'required' }]), edge).status).toBe(422);
  });

  it('answers an operationName the document does not define (INVALID_GRAPHQL from the gateway) with 400, not 500', () => {
    const unknownName = new GraphQLError('Unknown operation named "Organizations".', {
      extensions: { code: 'INVALID_GRAPHQL' },
    });
    expect(toErrorEnvelope(unknownName, edge)).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
  });

  it("answers Apollo's own request refusals (a persisted-query hash that doesn't match) as BAD_REQUEST, not INTERNAL", () => {
    const mismatch = new GraphQLError('provided sha does not match query', {
      extensions: { http: { status: 400, headers: new Map() } },
    });
    expect(toErrorEnvelope(mismatch, edge)).toEqual({
      status: 400,
      body: { error: { code: 'BAD_REQUEST', message: 'provided sha does not match query' } },
    });
    // Without Apollo's 400 an error without a code stays INTERNAL.
    const bare = new GraphQLError('boom', { extensions: { http: { status: 500 } } });
    expect(toErrorEnvelope(bare, edge).body.error.code).toBe('INTERNAL');
  });

  it('reads the code from extensions of errors that crossed the gateway', () => {
    const remote = new GraphQLError('nope', { extensions: { code: 'NAME_TAKEN', details: { name: 'x' } } });
    expect(toErrorEnvelope(remote, edge)).toMatchObject({
      status: 409,
      body: { error: { code: 'NAME_TAKEN', details: { name: 'x' } } },
    });
  });

  it('hides unknown errors behind INTERNAL with the request id and nothing else', () => {
    const leaked = new Error('duplicate key value violates unique constraint "user_pkey" at /srv/app.js:1');
    const { status, body } = toErrorEnvelope(leaked, edge);
    expect(status).toBe(500);
    expect(body.error).toEqual({
      code: 'INTERNAL',
      message: 'An internal error occurred.',
      details: { requestId: 'req-1' },
    });
  });

  it('turns variable coercion errors into 422 with a JSON pointer for bodies', () => {
    const err = new GraphQLError(
      'Variable "$input" got invalid value 5 at "input.name"; String cannot represent a non string value: 5',
    );
    expect(toErrorEnvelope(err, edge)).toEqual({
      status: 422,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'The request body failed validation.',
          details: { errors: [{ path: '/name', message: 'String cannot represent a non string value: 5' }] },
        },
      },
    });
    const missing = new GraphQLError(
      'Variable "$input" got invalid value {}; Field "name" of required type "String!" was not provided.',
    );
    expect(toErrorEnvelope(missing, edge).body.error.details).toEqual({
      errors: [{ path: '/name', message: 'Field "name" of required type "String!" was not provided.' }],
    });
  });

  it('turns bad query parameters into 400 naming the parameter', () => {
    const err = new GraphQLError(
      'Variable "$limit" got invalid value "abc"; Int cannot represent non-integer value: "abc"',
    );
    const { status, body } = toErrorEnvelope(err, { ...edge, variablesFrom: 'query' });
    expect(status).toBe(400);
    expect(body.error.details).toMatchObject({ parameter: 'limit' });
  });

  it('translates default messages by Accept-Language', () => {
    expect(negotiateLanguage('fr-CH, fr;q=0.9, en;q=0.8')).toBe('fr');
    expect(negotiateLanguage('xx, de;q=0.5')).toBe('de');
    expect(negotiateLanguage(undefined)).toBe('en');
    const { body } = toErrorEnvelope(new GraphQLError('x', { extensions: { code: 'UNAUTHORIZED' } }), {
      ...edge,
      lang: 'de',
    });
    expect(body.error.message).toBe('Die Authentifizierung fehlt, ist ungültig, abgelaufen oder widerrufen.');
    const untranslated = toErrorEnvelope(new GraphQLError('y', { extensions: { code: 'NAME_TAKEN' } }), {
      ...edge,
      lang: 'de',
    });
    expect(untranslated.body.error.message).toBe('y');
    const { body: translated } = toErrorEnvelope(new Error('boom'), { ...edge, lang: 'de' });
    expect(translated.error.message).toBe('Ein interner Fehler ist aufgetreten.');
  });
});
