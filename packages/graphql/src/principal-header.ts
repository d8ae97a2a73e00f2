// Carries the gateway's authenticated principal to remote subgraph services as a short-lived signed header.
import { UnauthorizedError } from '@cp/errors';
import { jwtVerify, SignJWT } from 'jose';
import { ANONYMOUS, type Principal } from './principal';

export const PRINCIPAL_HEADER = 'x-cp-principal';
const AUDIENCE = 'cp-subgraph';

export async function signPrincipal(principal: Principal, secret: Uint8Array): Promise<string> {
  return new SignJWT({ principal })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(secret);
}

/** No header means anonymous; a header that fails verification is refused outright. */
export async function verifyPrincipal(header: string | undefined, secret: Uint8Array): Promise<Principal> {
  if (!header) return ANONYMOUS;
  try {
    const { payload } = await jwtVerify(header, secret, { audience: AUDIENCE, algorithms: ['HS256'] });
    return payload.principal as Principal;
  } catch {
    throw new UnauthorizedError('The forwarded principal is invalid.');
  }
}
