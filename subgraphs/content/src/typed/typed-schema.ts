// A project's typed GraphQL schema, built from its published content types: a pure function, names from typed-names.ts.
import { BadRequestError } from '@cp/errors';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import {
  fieldPlan,
  filterKind,
  topLevelProperties,
  type FieldPlan,
  type FilterKind,
  type Scalar,
} from './typed-fields';
import { fieldNames, rootFieldName, typeNames, unique } from './typed-names';
import type {
  AssetTransform,
  FilterTree,
  OrderKey,
  TypedAsset,
  TypedContentType,
  TypedEntry,
  TypedSource,
} from './typed-source';

/** The largest `limit` of a collection, as on every list of the API. */
const MAX_COLLECTION_LIMIT = 100;
/** The largest `skip`: deeper pages are for the sync API, not offsets. */
const MAX_COLLECTION_SKIP = 10_000;

const nonNull = <T extends GraphQLOutputType | GraphQLInputType>(type: T) => new GraphQLNonNull(type);
const list = <T extends GraphQLOutputType | GraphQLInputType>(type: T) => new GraphQLList(new GraphQLNonNull(type));

/** Properties that can't be typed answer their JSON value as it is. */
const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value: a property whose schema has no GraphQL type of its own.',
  serialize: (value) => value,
});

const SCALAR_TYPES: Record<Scalar, GraphQLScalarType> = {
  String: GraphQLString,
  Int: GraphQLInt,
  Float: GraphQLFloat,
  Boolean: GraphQLBoolean,
};

/** Whether a stored value fits the published type (an entry may follow an older version of its type). */
const FITS: Record<Scalar, (value: unknown) => boolean> = {
  String: (v) => typeof v === 'string',
  Int: (v) => Number.isInteger(v) && (v as number) <= 2147483647 && (v as number) >= -2147483648,
  Float: (v) => typeof v === 'number' && Number.isFinite(v),
  Boolean: (v) => typeof v === 'boolean',
};

const Sys = new GraphQLObjectType<TypedEntry>({
  name: 'Sys',
  description: 'What the platform records about an entry.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'The entry’s id.' },
    typeId: { type: nonNull(GraphQLID), description: 'The id of its content type.' },
    typeVersion: { type: nonNull(GraphQLInt), description: 'The content type version its document follows.' },
    version: {
      type: GraphQLInt,
      description: 'The entry’s published version; null on a working copy (preview keys) not yet published as is.',
    },
    publishedAt: {
      type: GraphQLString,
      description: 'When it was last published (ISO 8601).',
      resolve: (e) => (typeof e.metadata?.publishedAt === 'string' ? e.metadata.publishedAt : null),
    },
    updatedAt: {
      type: nonNull(GraphQLString),
      description: 'When it last changed (ISO 8601).',
      resolve: (e) => new Date(e.updatedAt).toISOString(),
    },
  },
});

const entryFields = () => ({
  sys: { type: nonNull(Sys), description: 'The entry’s id, type and versions.', resolve: (e: TypedEntry) => e },
  name: { type: nonNull(GraphQLString), description: 'The entry’s name.' },
});

const AssetFit = new GraphQLEnumType({
  name: 'AssetFit',
  description: 'How a resized image fits `w` × `h`.',
  values: Object.fromEntries(['cover', 'contain', 'fill', 'inside', 'outside'].map((v) => [v, { value: v }])),
});
const AssetFormat = new GraphQLEnumType({
  name: 'AssetFormat',
  description: 'The format of a transformed image; `auto` picks AVIF or WebP when the browser accepts them.',
  values: Object.fromEntries(['png', 'jpeg', 'webp', 'avif', 'auto'].map((v) => [v, { value: v }])),
});
const AssetTransformInput = new GraphQLInputObjectType({
  name: 'AssetTransform',
  description: 'Image transformations, served by the CDN (images only: PNG, JPEG, WebP, AVIF, GIF).',
  fields: {
    w: { type: GraphQLInt, description: 'Width in pixels, 1–4000.' },
    h: { type: GraphQLInt, description: 'Height in pixels, 1–4000.' },
    fit: { type: AssetFit, description: 'How the image fits `w` × `h` (default `inside`).' },
    fm: { type: AssetFormat, description: 'Output format (default: the source’s).' },
    q: { type: GraphQLInt, description: 'Quality, 1–100 (default 80).' },
  },
});

const TRANSFORMABLE = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/avif', 'image/gif']);

/** The CDN's image transformation ranges, checked here so the address given is one the CDN serves. */
function checkedTransform(asset: TypedAsset, transform: AssetTransform | null | undefined): AssetTransform | undefined {
  const given = Object.entries(transform ?? {}).filter(([, v]) => v !== null && v !== undefined);
  if (given.length === 0) return undefined;
  if (!TRANSFORMABLE.has(asset.type))
    throw new BadRequestError('Only PNG, JPEG, WebP, AVIF and GIF images can be transformed.', {
      parameter: 'transform',
      type: asset.type,
    });
  for (const [parameter, value] of given) {
    const max = parameter === 'q' ? 100 : 4000;
    if (typeof value === 'number' && (value < 1 || value > max))
      throw new BadRequestError(`${parameter} must be an integer from 1 to ${max}.`, { parameter, value });
  }
  return Object.fromEntries(given) as AssetTransform;
}

const Asset = new GraphQLObjectType<TypedAsset, TypedSource>({
  name: 'Asset',
  description: 'A file of the project.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'The asset’s id.' },
    name: { type: nonNull(GraphQLString), description: 'Its file name.' },
    contentType: { type: nonNull(GraphQLString), description: 'Its media type.', resolve: (a) => a.type },
    size: { type: nonNull(GraphQLInt), description: 'Its size in bytes.' },
    url: {
      type: nonNull(GraphQLString),
      description: 'Its CDN address, with image transformations when `transform` is given.',
      args: { transform: { type: AssetTransformInput } },
      resolve: (asset, args: { transform?: AssetTransform | null }, source) =>
        source.assetUrl(asset, checkedTransform(asset, args.transform)),
    },
  },
});

const operatorInput = (name: string, description: string, value: GraphQLInputType | undefined, ops: string[]) =>
  new GraphQLInputObjectType({
    name,
    description,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      const help: Record<string, string> = {
        eq: 'Equal to.',
        neq: 'Not equal to.',
        in: 'Equal to one of these (at most 100).',
        like: 'Contains this text (case-insensitive); with `%`, a LIKE pattern.',
        gt: 'Greater than.',
        gte: 'Greater than or equal to.',
        lt: 'Less than.',
        lte: 'Less than or equal to.',
      };
      for (const op of ops) fields[op] = { type: op === 'in' ? list(value!) : value!, description: help[op] };
      fields.exists = { type: GraphQLBoolean, description: 'Whether the property has a value (not null).' };
      return fields;
    },
  });

const COMPARE = ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte'];
const FILTERS: Record<FilterKind, GraphQLInputObjectType> = {
  String: operatorInput('StringFilter', 'Conditions on a text property.', GraphQLString, [...COMPARE, 'like']),
  Int: operatorInput('IntFilter', 'Conditions on an integer property.', GraphQLInt, COMPARE),
  Float: operatorInput('FloatFilter', 'Conditions on a number property.', GraphQLFloat, COMPARE),
  Boolean: operatorInput('BooleanFilter', 'Conditions on a true/false property.', GraphQLBoolean, ['eq', 'neq']),
  Reference: operatorInput('ReferenceFilter', 'Conditions on a reference (the target’s id).', GraphQLID, ['eq', 'in']),
  Exists: operatorInput('ExistsFilter', 'Whether the property has a value.', undefined, []),
};

/** One property of a content type as the schema answers it. */
interface PropertyField {
  property: string;
  field: string;
  plan: FieldPlan;
  /** Filter and order apply (a name with `.` can't be a document filter's dotted path). */
  queryable: boolean;
}

interface TypeInfo {
  type: TypedContentType;
  name: string;
  fields: PropertyField[];
  object?: GraphQLObjectType<TypedEntry, TypedSource>;
}

/** A built schema, with the GraphQL type name of each content type (by id). */
export interface TypedSchema {
  schema: GraphQLSchema;
  typeNames: Map<string, string>;
}

/**
 * A reference property's resolver: the target of the id it holds, or of each id of a list (those that resolve to
 * nothing left out); null when the value is not an id (or a list of them).
 */
function references<T>(
  value: (entry: TypedEntry) => unknown,
  many: boolean,
  load: (source: TypedSource, id: string, from: TypedEntry) => Promise<T | null>,
) {
  const one = (source: TypedSource, id: unknown, from: TypedEntry) =>
    typeof id === 'string' ? load(source, id, from) : null;
  return async (entry: TypedEntry, _args: unknown, source: TypedSource) => {
    const held = value(entry);
    if (!many) return one(source, held, entry);
    if (!Array.isArray(held)) return null;
    return (await Promise.all(held.map((id) => one(source, id, entry)))).filter((target) => target !== null);
  };
}

/** Every root field's `locale`. */
const LOCALE_ARG = {
  type: GraphQLString,
  description:
    'The locale to answer in (a code of the project’s `locales`; default: its default locale): a localized property answers its value in that locale, else in its fallback chain, else null; filters and order read it the same way, and referenced entries are answered in it too.',
};

/**
 * The typed schema of a project's published content types, given oldest first (see typed-names.ts for how names are
 * chosen). Never throws on a type's schema: what can't be typed is `JSON`, what can't be named is renamed.
 */
export function buildTypedSchema(types: readonly TypedContentType[]): TypedSchema {
  const { names, taken } = typeNames(types.map((t) => (typeof t.name === 'string' ? t.name : '')));
  const infos: TypeInfo[] = types.map((type, i) => {
    const properties = topLevelProperties(type.schema);
    const byProperty = fieldNames(properties.map(([p]) => p));
    const fields = properties.map(([property, node]) => ({
      property,
      field: byProperty.get(property)!,
      plan: fieldPlan(property, node),
      queryable: !property.includes('.'),
    }));
    return { type, name: names[i], fields };
  });
  const byId = new Map(infos.map((info) => [info.type.id, info]));
  const resolveType = (entry: TypedEntry) => byId.get(entry.typeId)?.name;
  const Entry = new GraphQLInterfaceType({
    name: 'Entry',
    description: 'Any entry of the project.',
    fields: entryFields,
    resolveType,
  });

  /** The GraphQL type of an entry reference: one type, a union of the allowed ones, or any entry. */
  const targetType = (owner: TypeInfo, field: PropertyField, typeIds: string[] | undefined): GraphQLOutputType => {
    const members = [...new Set((typeIds ?? []).flatMap((id) => byId.get(id) ?? []))];
    if (members.length === 0) return Entry;
    if (members.length === 1) return members[0].object!;
    const base = `${owner.name}${field.field[0].toUpperCase()}${field.field.slice(1)}Target`;
    const name = unique(base, (n) => taken.has(n));
    taken.add(name);
    return new GraphQLUnionType({
      name,
      description: `What \`${owner.name}.${field.field}\` may reference.`,
      types: () => members.map((m) => m.object!),
      resolveType,
    });
  };

  /** The target if the caller may see it here: of a type the reference allows and the schema holds. */
  const allowedTarget = (entry: TypedEntry | null, typeIds: string[] | undefined) =>
    entry && byId.has(entry.typeId) && (!typeIds || typeIds.includes(entry.typeId)) ? entry : null;

  const assetOf = (source: TypedSource, id: string) => source.asset(id);

  const propertyField = (field: PropertyField): GraphQLFieldConfig<TypedEntry, TypedSource> => {
    const { plan, property } = field;
    const description =
      field.field === property ? `The \`${property}\` property.` : `The property named ${JSON.stringify(property)}.`;
    const value = (entry: TypedEntry) => (entry.content ?? {})[property];
    switch (plan.kind) {
      case 'json':
        return { type: JSONScalar, description, resolve: (e) => value(e) ?? null };
      case 'scalar': {
        const fits = FITS[plan.scalar];
        const type = SCALAR_TYPES[plan.scalar];
        if (!plan.list) return { type, description, resolve: (e) => (fits(value(e)) ? value(e) : null) };
        return {
          type: list(type),
          description,
          resolve: (e) => (Array.isArray(value(e)) ? (value(e) as unknown[]).filter(fits) : null),
        };
      }
      case 'asset':
        return { type: plan.list ? list(Asset) : Asset, description, resolve: references(value, plan.list, assetOf) };
      case 'entry': {
        const target = targets.get(field)!;
        const entryOf = async (source: TypedSource, id: string, from: TypedEntry) =>
          allowedTarget(await source.entry(id, source.localeOf(from)), plan.typeIds);
        return { type: plan.list ? list(target) : target, description, resolve: references(value, plan.list, entryOf) };
      }
    }
  };

  for (const info of infos) {
    info.object = new GraphQLObjectType<TypedEntry, TypedSource>({
      name: info.name,
      description: `An entry of the content type ${JSON.stringify(info.type.name)} (\`${info.type.id}\`), as of its version ${info.type.version}.`,
      interfaces: [Entry],
      fields: () => {
        const fields: GraphQLFieldConfigMap<TypedEntry, TypedSource> = entryFields();
        for (const field of info.fields) fields[field.field] = propertyField(field);
        return fields;
      },
    });
  }

  // Unions are named here, in type and property order, so their names don't depend on when graphql-js reads fields.
  const targets = new Map<PropertyField, GraphQLOutputType>();
  for (const info of infos)
    for (const field of info.fields)
      if (field.plan.kind === 'entry') targets.set(field, targetType(info, field, field.plan.typeIds));

  const query: GraphQLFieldConfigMap<unknown, TypedSource> = {
    entry: {
      type: Entry,
      description: 'Any entry of the project by its id, when its content type is in this schema.',
      args: { id: { type: nonNull(GraphQLID) }, locale: LOCALE_ARG },
      resolve: async (_root, args: { id: string; locale?: string | null }, source) =>
        allowedTarget(await source.entry(args.id, source.locale(args.locale)), undefined),
    },
  };
  for (const info of infos) Object.assign(query, rootFields(info));

  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      description: 'The project’s published content types, each as a type of its own.',
      fields: query,
    }),
    types: [...infos.map((i) => i.object!), Asset],
  });
  return {
    schema,
    typeNames: new Map(infos.map((i) => [i.type.id, i.name])),
  };
}

/** `t(id)` and `tCollection(where, order, limit, skip)` of one content type. */
function rootFields(info: TypeInfo): GraphQLFieldConfigMap<unknown, TypedSource> {
  const object = info.object!;
  const queryable = info.fields.filter((f) => f.queryable);
  const filter: GraphQLInputObjectType = new GraphQLInputObjectType({
    name: `${info.name}Filter`,
    description: `Conditions on ${info.name} entries; all must hold. \`AND\` and \`OR\` combine further filters.`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const f of queryable) fields[f.field] = { type: FILTERS[filterKind(f.plan)] };
      fields.AND = { type: list(filter), description: 'Every one of these holds (an empty list: always).' };
      fields.OR = { type: list(filter), description: 'At least one of these holds (an empty list: never).' };
      return fields;
    },
  });
  const orderValues: Record<string, { value: OrderKey; description: string }> = {
    sys_updatedAt_ASC: { value: { field: 'updatedAt', direction: 'asc' }, description: 'Oldest change first.' },
    sys_updatedAt_DESC: { value: { field: 'updatedAt', direction: 'desc' }, description: 'Newest change first.' },
  };
  for (const f of queryable) {
    if (filterKind(f.plan) === 'Exists') continue;
    for (const direction of ['asc', 'desc'] as const)
      orderValues[`${f.field}_${direction.toUpperCase()}`] = {
        value: { field: `content.${f.property}`, direction },
        description: `By \`${f.field}\`, ${direction === 'asc' ? 'ascending' : 'descending'}.`,
      };
  }
  const order = new GraphQLEnumType({
    name: `${info.name}Order`,
    description: `How ${info.name} entries are ordered; ties are broken by id.`,
    values: orderValues,
  });
  const collection = new GraphQLObjectType<{ items: TypedEntry[]; total: () => Promise<number> }>({
    name: `${info.name}Collection`,
    description: `A page of ${info.name} entries.`,
    fields: {
      items: { type: nonNull(list(object)), description: 'The entries of this page.' },
      total: { type: nonNull(GraphQLInt), description: 'How many entries match, over all pages.' },
      skip: { type: nonNull(GraphQLInt), description: 'How many matching entries come before this page.' },
      limit: { type: nonNull(GraphQLInt), description: 'The page size asked for.' },
    },
  });
  const fieldOf = new Map(queryable.map((f) => [f.field, f.property]));
  const root = rootFieldName(info.name);
  return {
    [root]: {
      type: object,
      description: `One ${info.name} entry by its id.`,
      args: { id: { type: nonNull(GraphQLID) }, locale: LOCALE_ARG },
      resolve: async (_root, args: { id: string; locale?: string | null }, source) => {
        const entry = await source.entry(args.id, source.locale(args.locale));
        return entry?.typeId === info.type.id ? entry : null;
      },
    },
    [`${root}Collection`]: {
      type: nonNull(collection),
      description: `${info.name} entries matching \`where\`, in \`order\` (default: newest change first).`,
      args: {
        where: { type: filter },
        order: { type: list(order) },
        limit: { type: GraphQLInt, defaultValue: 20, description: `Page size, 1–${MAX_COLLECTION_LIMIT}.` },
        skip: { type: GraphQLInt, defaultValue: 0, description: `Entries to skip, 0–${MAX_COLLECTION_SKIP}.` },
        locale: LOCALE_ARG,
      },
      resolve: async (
        _root,
        args: {
          where?: Record<string, unknown> | null;
          order?: OrderKey[] | null;
          limit?: number;
          skip?: number;
          locale?: string | null;
        },
        source,
      ) => {
        const limit = args.limit ?? 20;
        const skip = args.skip ?? 0;
        if (limit < 1 || limit > MAX_COLLECTION_LIMIT)
          throw new BadRequestError(`limit must be from 1 to ${MAX_COLLECTION_LIMIT}.`, { parameter: 'limit' });
        if (skip < 0 || skip > MAX_COLLECTION_SKIP)
          throw new BadRequestError(`skip must be from 0 to ${MAX_COLLECTION_SKIP}.`, { parameter: 'skip' });
        const orderKeys = args.order?.length ? args.order : [orderValues.sys_updatedAt_DESC.value];
        const page = await source.collection({
          type: info.type,
          where: filterTree(args.where ?? {}, fieldOf),
          order: orderKeys,
          limit,
          skip,
          locale: source.locale(args.locale),
        });
        return { items: page.items, total: page.total, skip, limit };
      },
    },
  };
}

/** A `where` argument as document filters on `content.<property>`; operators given as null are left out. */
function filterTree(where: Record<string, unknown>, propertyOf: Map<string, string>): FilterTree {
  const tree: FilterTree = { filter: {}, and: [] };
  for (const [field, value] of Object.entries(where)) {
    if (value === null || value === undefined) continue;
    if (field === 'AND' || field === 'OR') {
      const trees = (value as Record<string, unknown>[]).map((w) => filterTree(w, propertyOf));
      if (field === 'AND') tree.and.push(...trees);
      else tree.or = trees;
      continue;
    }
    const ops = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    if (ops.length > 0) tree.filter[`content.${propertyOf.get(field)!}`] = Object.fromEntries(ops);
  }
  return tree;
}
