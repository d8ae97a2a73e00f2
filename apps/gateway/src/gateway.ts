// @apollo/gateway over the committed supergraph: subgraphs in-process by default, remote over keep-alive HTTP when configured.
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSource } from '@apollo/gateway';
import type { SubgraphName } from '@cp/config';
import { PRINCIPAL_HEADER, signPrincipal, type Context } from '@cp/graphql';
import type { GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_DIR } from './compose';
import { CachedLocalDataSource } from './local-data-source';

export function readSupergraph(): string {
  return readFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8');
}

export interface GatewayOptions {
  supergraphSdl: string;
  /** Subgraphs served in this process, by name. */
  local: Partial<Record<SubgraphName, GraphQLSchema>>;
  /** Subgraphs served elsewhere, by name. */
  remote: Partial<Record<SubgraphName, string>>;
  /** Signs the principal forwarded to remote subgraphs. */
  secret: Uint8Array;
}

class ForwardingDataSource extends RemoteGraphQLDataSource<Context> {
  constructor(
    url: string,
    private readonly secret: Uint8Array,
  ) {
    // Node's fetch (undici) keeps connections alive across requests.
    super({ url, fetcher: fetch as never });
  }

  override async willSendRequest({ request, context }: Parameters<NonNullable<RemoteGraphQLDataSource<Context>['willSendRequest']>>[0]) {
    const headers = request.http?.headers;
    if (!headers || !context.principal) return;
    headers.set(PRINCIPAL_HEADER, await signPrincipal(context.principal, this.secret));
    headers.set('x-request-id', context.requestId);
    headers.set('accept-language', context.lang);
  }
}

export function createGateway(options: GatewayOptions): ApolloGateway {
  return new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService({ name, url }): GraphQLDataSource {
      const local = options.local[name as SubgraphName];
      if (local) return new CachedLocalDataSource(local);
      const remote = options.remote[name as SubgraphName] ?? url;
      if (!remote) throw new Error(`Subgraph ${name} has neither a local schema nor a URL.`);
      return new ForwardingDataSource(remote, options.secret);
    },
  });
}
