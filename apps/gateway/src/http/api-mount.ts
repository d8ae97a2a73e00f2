// Which API a request is addressed to, read from its path the way Express's router matches a mount: the prefix in any
// letter case, then `/`, a query or the end. The front stages run before any mount, for every request, and ask this.
import type { IncomingMessage } from 'node:http';

export type ApiMount = '/app/v1' | '/api/v1' | '/graphql';

const MOUNT = /^\/(?:(app|api)\/v1|graphql)(?:[/?]|$)/i;

export function apiMount(req: IncomingMessage & { originalUrl?: string }): ApiMount | undefined {
  const match = MOUNT.exec(req.originalUrl ?? req.url ?? '');
  if (!match) return undefined;
  return match[1] ? (`/${match[1].toLowerCase()}/v1` as ApiMount) : '/graphql';
}
