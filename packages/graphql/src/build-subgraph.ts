// The one helper that turns type-graphql resolvers into a Federation 2 subgraph schema (stack-facts "Wiring").
import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, specifiedDirectives, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { revisionMiddleware } from '@cp/db';
import type { Context } from '@cp/principal';
import {
  buildSchema,
  createResolversMap,
  type BuildSchemaOptions,
  type ContainerType,
  type NonEmptyArray,
} from 'type-graphql';

const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides", "@inaccessible"])';

export interface SubgraphDefinition {
  /** Subgraph name as composed into the supergraph (`content`, `access`, …). */
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  resolvers: NonEmptyArray<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  orphanedTypes?: Function[];
  /** `__resolveReference` (and other raw resolvers) per entity type name. */
  referenceResolvers?: GraphQLResolverMap<unknown>;
  /** Resolver instances that need dependencies; any other resolver class is constructed without arguments. */
  instances?: object[];
}

export interface BuiltSubgraph {
  name: string;
  schema: GraphQLSchema;
  /** The subgraph SDL with federation directives: committed under `schema/` and composed. */
  sdl: string;
}

export async function buildFederatedSchema(def: SubgraphDefinition): Promise<BuiltSubgraph> {
  const options: BuildSchemaOptions = {
    resolvers: def.resolvers,
    orphanedTypes: def.orphanedTypes,
    directives: [...specifiedDirectives],
    skipCheck: true,
    validate: false,
    container: instanceContainer(def.instances ?? []),
    // type-graphql wants a PubSub once a subscription exists, even when each brings its own `subscribe`.
    pubSub: { publish: noPubSub, subscribe: noPubSub },
  };
  const typeGraphqlSchema = await buildSchema(options);
  const sdl = `${FEDERATION_LINK}\n\n${printSchemaWithDirectives(typeGraphqlSchema)}\n`;
  const resolvers = createResolversMap(typeGraphqlSchema) as GraphQLResolverMap<unknown>;
  withRevisionChecks(resolvers);
  for (const [typeName, extra] of Object.entries(def.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] as object), ...(extra as object) } as never;
  }
  const schema = buildSubgraphSchema({ typeDefs: parse(sdl), resolvers });
  return { name: def.name, schema, sdl };
}

/**
 * The `expectedRevision` check on every mutation. Not a type-graphql global middleware: those wrap every field of
 * every type, which makes each scalar of a 20-entry list an async call and costs list reads most of their throughput.
 */
function withRevisionChecks(resolvers: GraphQLResolverMap<unknown>): void {
  const mutation = resolvers.Mutation as Record<string, GraphQLFieldResolver<unknown, Context>> | undefined;
  for (const [field, resolve] of Object.entries(mutation ?? {})) {
    if (typeof resolve !== 'function') continue;
    mutation![field] = (root, args, context, info) =>
      revisionMiddleware({ root, args, context, info }, () => Promise.resolve(resolve(root, args, context, info)));
  }
}

function noPubSub(): never {
  throw new Error('Subgraphs do not publish or subscribe; the gateway serves subscriptions.');
}

/** A minimal container: the given instances, and one argument-less instance of every other resolver class. */
function instanceContainer(instances: object[]): ContainerType {
  const byClass = new Map<unknown, object>(instances.map((i) => [i.constructor, i]));
  return {
    get(cls: new () => object) {
      let instance = byClass.get(cls);
      if (!instance) byClass.set(cls, (instance = new cls()));
      return instance;
    },
  };
}
