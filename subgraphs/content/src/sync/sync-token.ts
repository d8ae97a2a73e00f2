// Sync tokens: opaque, signed positions in the event feed, bound to one project, one view and one filter.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { BadRequestError } from '@cp/errors';
import type { KeyVisibility, ProjectScope } from '@cp/graphql';

/** What one sync follows: a project as one view sees it, optionally narrowed to a content type and a locale. */
export interface SyncBinding extends ProjectScope {
  view: KeyVisibility;
  typeId?: string;
  locale?: string;
}

/**
 * Where a client stands. `snapshot`: inside an initial sync that began at event position `at`, past the entries up
 * to id `after`. `delta`: inside a delta, past the events up to position `after`. `caught-up`: a sync token, every
 * change up to position `at` applied.
 */
export type SyncCursor =
  | { kind: 'snapshot'; at: string; after: string }
  | { kind: 'delta'; after: string }
  | { kind: 'caught-up'; at: string };

export type SyncTokenParameter = 'pageToken' | 'syncToken';

/** The compact form a token carries: short keys keep tokens short in URLs. */
interface Payload {
  v: 1;
  o: string;
  p: string;
  s: KeyVisibility;
  t?: string;
  l?: string;
  k: 'S' | 'D' | 'C';
  a: string;
  i?: string;
}

const KINDS = { snapshot: 'S', delta: 'D', 'caught-up': 'C' } as const;
const POSITION = /^\d{1,19}$/;

/**
 * Signs and checks tokens with HMAC-SHA-256 under a key derived from the service secret, so every replica accepts
 * every other's tokens and a client can neither forge a position nor move a token to another project or view.
 */
export class SyncTokens {
  private readonly key: Buffer;

  constructor(serviceSecret: Uint8Array) {
    this.key = Buffer.from(hkdfSync('sha256', serviceSecret, 'cp-sync-tokens', 'hmac-sha256', 32));
  }

  sign(binding: SyncBinding, cursor: SyncCursor): string {
    const payload: Payload = {
      v: 1,
      o: binding.organizationId,
      p: binding.projectId,
      s: binding.view,
      ...(binding.typeId === undefined ? {} : { t: binding.typeId }),
      ...(binding.locale === undefined ? {} : { l: binding.locale }),
      k: KINDS[cursor.kind],
      a: cursor.kind === 'delta' ? cursor.after : cursor.at,
      ...(cursor.kind === 'snapshot' ? { i: cursor.after } : {}),
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /**
   * The cursor of a token given as `parameter`, with the filter it carries; 400 when it is not one of ours (malformed
   * or tampered), belongs to another project or view, or is the other kind (a sync token as `pageToken`, or a page
   * token as `syncToken`).
   */
  open(
    token: string,
    parameter: SyncTokenParameter,
    scope: ProjectScope & { view: KeyVisibility },
  ): { cursor: SyncCursor; binding: SyncBinding } {
    const payload = this.verified(token, parameter);
    if (payload.o !== scope.organizationId || payload.p !== scope.projectId || payload.s !== scope.view) {
      throw new BadRequestError(`${parameter} was issued for another project or another kind of API key.`, {
        parameter,
        reason: 'foreign',
      });
    }
    const cursor: SyncCursor =
      payload.k === 'S'
        ? { kind: 'snapshot', at: payload.a, after: payload.i ?? '' }
        : payload.k === 'D'
          ? { kind: 'delta', after: payload.a }
          : { kind: 'caught-up', at: payload.a };
    if ((cursor.kind === 'caught-up') !== (parameter === 'syncToken')) {
      const expected = parameter === 'syncToken' ? 'a `nextSyncToken`' : 'a `nextPageToken`';
      throw new BadRequestError(`${parameter} must be ${expected} of an earlier answer.`, {
        parameter,
        reason: 'wrong-kind',
      });
    }
    const binding: SyncBinding = { ...scope, typeId: payload.t, locale: payload.l };
    return { cursor, binding };
  }

  private verified(token: string, parameter: SyncTokenParameter): Payload {
    const refuse = () =>
      new BadRequestError(`${parameter} is not a token this service issued, or it was altered.`, {
        parameter,
        reason: 'invalid',
      });
    const [body, mac, ...rest] = token.split('.');
    if (!body || !mac || rest.length > 0) throw refuse();
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse();
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw refuse();
    }
    // Signed by us, so well formed unless a later format changed it: the version and position are checked all the same.
    if (payload?.v !== 1 || !POSITION.test(String(payload.a)) || !['S', 'D', 'C'].includes(payload.k)) throw refuse();
    return payload;
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}
