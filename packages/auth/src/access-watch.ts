// Long-lived streams (SSE, graphql-ws) re-check their caller when an access change reaches this replica.
import { AppError, UnauthorizedError } from '@cp/errors';
import type { Authenticator, Context, Credentials, Principal, ProjectDirectory } from '@cp/principal';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ACCESS_RESOURCE_TYPES, type AccessChange } from './principal-cache';

export interface WatchedCaller {
  principal: Principal;
  /**
   * The client's own credentials the stream was opened with (`clientCredentials`): authenticated again, from the
   * database. Without them (a principal our gateway vouched for) nothing can be re-checked here, so any change that
   * concerns the principal ends the stream.
   */
  credentials?: Credentials;
  /** Whatever the stream needed to be allowed (e.g. `eventFilterFor`); throwing means "no longer allowed". */
  authorize(ctx: Pick<Context, 'principal' | 'projects' | 'em'>): Promise<unknown>;
  /** Ends the stream (SSE ends, graphql-ws closes 4403). */
  revoke(): void;
}

/**
 * Fed by the same event fan-out that drops cached principals, so every replica hears of a revoked key, a deleted
 * or demoted user, a changed role or a deleted project at once, and ends the streams that lost their right.
 */
export class AccessWatch {
  private readonly callers = new Set<WatchedCaller>();

  constructor(
    private readonly deps: { orm: MikroORM; auth: Authenticator; projects: ProjectDirectory },
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** Returns the function that stops watching (call it when the stream ends). */
  watch(caller: WatchedCaller): () => void {
    this.callers.add(caller);
    return () => this.callers.delete(caller);
  }

  /** Called with every new event (after the principal cache, if any, dropped what it affects); others are ignored. */
  changed(change: AccessChange): void {
    if (!ACCESS_RESOURCE_TYPES.has(change.resourceType)) return;
    for (const caller of this.callers) if (affects(change, caller.principal)) void this.recheck(caller);
  }

  private async recheck(caller: WatchedCaller): Promise<void> {
    try {
      if (!caller.credentials) throw new UnauthorizedError('Reconnect through the gateway to be authenticated again.');
      const em = this.deps.orm.em.fork();
      const { principal } = await this.deps.auth.authenticate(em, caller.credentials);
      await caller.authorize({ principal, projects: this.deps.projects, em });
    } catch (err) {
      // Refusals end the stream; anything else (the database briefly away) keeps it, as a request would be retried.
      if (err instanceof AppError && ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'].includes(err.code)) {
        this.callers.delete(caller);
        caller.revoke();
      } else {
        this.onError?.(err);
      }
    }
  }
}

function affects(change: AccessChange, principal: Principal): boolean {
  if (principal.kind === 'anonymous' || change.organizationId !== principal.organizationId) return false;
  switch (change.resourceType) {
    case 'api-keys':
      return principal.kind === 'apiKey' && change.resourceId === principal.keyId;
    case 'users':
      return principal.kind === 'user' && change.resourceId === principal.userId;
    case 'roles':
      return principal.kind === 'user';
    case 'projects':
    case 'organizations':
      return true;
    default:
      // Content, assets, …: not an access change.
      return false;
  }
}
