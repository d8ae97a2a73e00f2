// REST bodies are JSON: a member of the wrong JSON type is 422 naming it, before GraphQL's input coercion.
import type { FieldError } from '@cp/errors';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
} from 'graphql';

/** The JSON type each built-in scalar takes; other scalars (JSON, JSONObject, …) take any value and check it themselves. */
const SCALARS: Record<string, [test: (value: unknown) => boolean, message: string]> = {
  ID: [(v) => typeof v === 'string', 'must be a string'],
  String: [(v) => typeof v === 'string', 'must be a string'],
  Int: [(v) => Number.isInteger(v), 'must be an integer'],
  Float: [(v) => typeof v === 'number', 'must be a number'],
  Boolean: [(v) => typeof v === 'boolean', 'must be a boolean'],
};

/**
 * A route's body members against its arguments' types: a flat argument's own, or the field of its `input` argument
 * of that name (the handler hands a flat body to both). GraphQL coerces what JSON keeps apart: a single value given
 * for a list becomes a one-item list, a number given for an ID becomes its digits. Over GraphQL that is the
 * language's rule; a REST body says what it means in JSON, so such a member is refused here instead. Null and
 * missing members are left to GraphQL, whose messages name them.
 */
export function bodyTypeErrors(args: readonly GraphQLArgument[], body: Record<string, unknown>): FieldError[] {
  const input = args.find((a) => a.name === 'input');
  const inputType = input && getNamedType(input.type);
  const inputFields = inputType && isInputObjectType(inputType) ? inputType.getFields() : {};
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(body)) {
    const type = args.find((a) => a.name === name && a !== input)?.type ?? inputFields[name]?.type;
    if (type) check(type, value, `/${name}`, errors);
  }
  return errors;
}

function check(type: GraphQLInputType, value: unknown, path: string, errors: FieldError[]): void {
  if (value === null || value === undefined) return;
  if (isNonNullType(type)) return check(type.ofType, value, path, errors);
  if (isListType(type)) {
    if (!Array.isArray(value)) return void errors.push({ path, message: 'must be an array' });
    return value.forEach((item, i) => check(type.ofType, item, `${path}/${i}`, errors));
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value))
      return void errors.push({ path, message: 'must be an object' });
    const fields = type.getFields();
    for (const [name, member] of Object.entries(value))
      if (Object.hasOwn(fields, name)) check(fields[name].type, member, `${path}/${name}`, errors);
    return;
  }
  if (isEnumType(type)) {
    if (typeof value !== 'string') errors.push({ path, message: 'must be a string' });
    return;
  }
  const scalar = SCALARS[type.name];
  if (scalar && !scalar[0](value)) errors.push({ path, message: scalar[1] });
}
