// The one helper that turns type-graphql resolvers into a Federation 2 subgraph schema (stack-facts "Wiring").
import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type BuildSchemaOptions, type ContainerType, type NonEmptyArray } from 'type-graphql';

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
  };
  const typeGraphqlSchema = await buildSchema(options);
  const sdl = `${FEDERATION_LINK}\n\n${printSchemaWithDirectives(typeGraphqlSchema)}\n`;
  const resolvers = createResolversMap(typeGraphqlSchema) as GraphQLResolverMap<unknown>;
  for (const [typeName, extra] of Object.entries(def.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] as object), ...(extra as object) } as never;
  }
  const schema = buildSubgraphSchema({ typeDefs: parse(sdl), resolvers });
  return { name: def.name, schema, sdl };
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
