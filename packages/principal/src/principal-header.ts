// Carries the gateway's authenticated principal to remote subgraph services as a short-lived signed header, bound to
// one subgraph (`aud`) and one request (`rid` = that request's X-Request-ID) and signed with SUBGRAPH_SECRET.
import { UnauthorizedError } from '@cp/errors';
import { jwtVerify, SignJWT } from 'jose';
import { ANONYMOUS, type Principal } from './principal';

export const PRINCIPAL_HEADER = 'x-cp-principal';
const AUDIENCE_PREFIX = 'cp-subgraph:';

/** What the header is bound to: the subgraph it is sent to and the request id sent with it. */
export interface PrincipalBinding {
  subgraph: string;
  requestId: string;
  /**
   * The `Idempotency-Key` our gateway holds a claim on for this request: the service's write transactions mark
   * that claim `committed`, as the gateway's own would (packages/edge/src/idempotency.ts).
   */
  idempotencyKey?: string;
}

/** What a verified header says: the principal, and the gateway's idempotency claim when it holds one. */
export interface Vouched {
  principal: Principal;
  idempotencyKey?: string;
}

export async function signPrincipal(
  principal: Principal,
  secret: Uint8Array,
  binding: PrincipalBinding,
): Promise<string> {
  const claim = binding.idempotencyKey === undefined ? {} : { idem: binding.idempotencyKey };
  return new SignJWT({ principal, rid: binding.requestId, ...claim })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(AUDIENCE_PREFIX + binding.subgraph)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(secret);
}

/**
 * No header means anonymous; a header that fails verification, was signed for another subgraph, or travels with
 * another request id (a replay) is refused outright.
 */
export async function verifyPrincipal(
  header: string | undefined,
  secret: Uint8Array,
  binding: { subgraph: string; requestId: string | undefined },
): Promise<Principal> {
  return (await verifyVouched(header, secret, binding)).principal;
}

/** `verifyPrincipal`, with the idempotency claim the header carries. */
export async function verifyVouched(
  header: string | undefined,
  secret: Uint8Array,
  binding: { subgraph: string; requestId: string | undefined },
): Promise<Vouched> {
  if (!header) return { principal: ANONYMOUS };
  try {
    const { payload } = await jwtVerify(header, secret, {
      audience: AUDIENCE_PREFIX + binding.subgraph,
      algorithms: ['HS256'],
    });
    if (typeof payload.rid !== 'string' || payload.rid !== binding.requestId) throw new Error('request id mismatch');
    const principal = payload.principal as Principal;
    return typeof payload.idem === 'string' ? { principal, idempotencyKey: payload.idem } : { principal };
  } catch {
    throw new UnauthorizedError('The forwarded principal is invalid.');
  }
}
