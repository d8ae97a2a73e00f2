// Which API a request is addressed to, read from its path the way Express's router matches a mount: the pathname it
// parses (an absolute-form target's path, no query or fragment), the prefix in any letter case, then `/` or the end.
// The front stages run before any mount, for every request, and ask this.
import type { Request } from 'express';

export type ApiMount = '/app/v1' | '/api/v1' | '/graphql';

const MOUNT = /^\/(?:(app|api)\/v1|graphql)(?:\/|$)/i;

/** At the router's root, where `req.path` is the request's own (Express's `parseurl` pathname, as its router reads). */
export function apiMount(req: Request): ApiMount | undefined {
  const match = MOUNT.exec(req.path);
  if (!match) return undefined;
  return match[1] ? (`/${match[1].toLowerCase()}/v1` as ApiMount) : '/graphql';
}
