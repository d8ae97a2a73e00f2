// Who may use an API family at all: `/app/v1` takes user tokens only, `/api/v1` API keys only; anything
// else is 401 before any rights are checked. Shared by the gateway and a standalone subgraph service's HTTP routes.
import { UnauthorizedError } from '@cp/errors';
import type { Context } from './context';

/** The two HTTP API families: `/app/v1` (admin, JWT) and `/api/v1` (client, API key). */
export type ApiFamily = 'app' | 'api';

export function assertFamilyPrincipal(family: ApiFamily, context: Pick<Context, 'principal'>): void {
  const kind = context.principal.kind;
  if (family === 'app' && kind !== 'user') {
    throw new UnauthorizedError(
      kind === 'apiKey' ? 'API keys cannot use the admin API.' : 'A bearer token is required.',
    );
  }
  if (family === 'api' && kind !== 'apiKey') throw new UnauthorizedError('An `x-api-key` header is required.');
}
