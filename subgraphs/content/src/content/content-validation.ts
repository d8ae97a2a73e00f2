// Validates a document: the type's JSON Schema for everything but `content.components`, then each component instance.
import { AppError, ValidationFailedError, type FieldError } from '@cp/errors';
import type { LocaleRequest, ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { createHash } from 'node:crypto';
import { projectComponents, type CatalogComponent } from '../shared/component-catalog';
import { jsonSchema as ajv, pointerSegment } from '../shared/json-schema';
import { documentsToValidate } from './content-locales';

/** Compiled validators by schema content: types and components change rarely, documents are validated often. */
const validators = new Map<string, ValidateFunction>();
/** By schema object too: a type version's schema is one shared object (read once), so most lookups hash nothing. */
const bySchema = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const known = bySchema.get(schema);
  if (known) return known;
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
  let validate = validators.get(key);
  if (!validate) {
    if (validators.size > 1000) validators.clear();
    validators.set(key, (validate = ajv.compile(schema)));
  }
  bySchema.set(schema, validate);
  return validate;
}

function toFieldErrors(errors: ErrorObject[] | null | undefined, prefix: string): FieldError[] {
  return (errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '';
    return { path: `${prefix}${e.instancePath}${missing}`, message: e.message ?? 'is invalid' };
  });
}

/** The components an entry may use: the type's allow list (ids or groups `{id, name, componentIds}`), or all when empty. */
export async function allowedComponents(
  em: EntityManager,
  scope: ProjectScope,
  allowList: unknown[],
): Promise<Map<string, CatalogComponent>> {
  const all = await projectComponents(em, scope);
  const ids = new Set(
    allowList.flatMap((entry) =>
      typeof entry === 'string'
        ? [entry]
        : ((entry as { componentIds?: unknown[] })?.componentIds ?? []).filter(
            (id): id is string => typeof id === 'string',
          ),
    ),
  );
  return new Map(all.filter((c) => ids.size === 0 || ids.has(c.id)).map((c) => [c.name, c]));
}

interface ComponentNode {
  type?: unknown;
  props?: unknown;
  children?: unknown;
}

/**
 * A stored document against its type's schema, and its component tree against the catalog. With `localized`, the
 * document holds every locale's values of those properties: the default locale's document must satisfy the schema,
 * and each other locale's values their property's schema (errors name them `/<property>/<locale>/…`).
 */
export function validateDocument(
  document: Record<string, unknown>,
  schema: Record<string, unknown>,
  allowed: Map<string, CatalogComponent>,
  localized?: { keys: readonly string[]; locale: LocaleRequest },
): void {
  const [first, ...others] = localized
    ? documentsToValidate(document, localized.keys, localized.locale)
    : [{ code: '', document, own: [] }];
  const { components, ...data } = first.document;
  const validate = validatorFor(schema);
  const errors = validate(data) ? [] : toFieldErrors(validate.errors, '');
  if (components !== undefined) errors.push(...validateNodes(components, '/components', allowed));
  const reported = new Set(errors.map((e) => `${e.path}\0${e.message}`));
  for (const { code, document: inLocale, own } of others) {
    const { components: _components, ...values } = inLocale;
    if (validate(values)) continue;
    // Only this locale's own values differ from the default's document, checked above: an error under one of them is
    // named `/<property>/<locale>/…`; one elsewhere (a rule across properties) is reported once, naming the locale.
    for (const error of toFieldErrors(validate.errors, '')) {
      const key = own
        .map((k) => `/${pointerSegment(k)}`)
        .find((k) => error.path === k || error.path.startsWith(`${k}/`));
      if (key !== undefined) errors.push({ ...error, path: `${key}/${code}${error.path.slice(key.length)}` });
      else if (!reported.has(`${error.path}\0${error.message}`))
        errors.push({ ...error, message: `${error.message} (with the values of locale ${code})` });
    }
  }
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

function validateNodes(nodes: unknown, path: string, allowed: Map<string, CatalogComponent>): FieldError[] {
  if (!Array.isArray(nodes)) return [{ path, message: 'must be an array of {type, props, children?}' }];
  return nodes.flatMap((node: ComponentNode, i) => {
    const at = `${path}/${i}`;
    if (typeof node !== 'object' || node === null || typeof node.type !== 'string')
      return [{ path: `${at}/type`, message: 'must be a component name' }];
    const component = allowed.get(node.type);
    if (!component) {
      throw new AppError('INVALID_COMPONENT', `Component "${node.type}" is not allowed here.`, {
        componentType: node.type,
        allowedTypes: [...allowed.keys()].sort(),
      });
    }
    const validate = validatorFor(component.schema);
    const errors = validate(node.props ?? {}) ? [] : toFieldErrors(validate.errors, `${at}/props`);
    return node.children === undefined
      ? errors
      : [...errors, ...validateNodes(node.children, `${at}/children`, allowed)];
  });
}
