// `select`: the entry fields and `content.<path>`s an answer keeps. Here, in one place for REST and GraphQL, the
// `content` document of the answered entries is pruned to the named paths (the REST edge drops the entry fields not
// named); `includes` are never pruned.
import { BadRequestError } from '@cp/errors';
import { assertDeclaredPath, DOCUMENT_FIELD } from './content-fields';

export const SELECT_PARAMETER = 'select';

/** What a `select` asks of the document: all of it (`content` named), or the named paths (none: an empty document). */
export interface DocumentSelection {
  /** Each `content.<path>` as it was named, and its segments. */
  paths: { field: string; path: string[] }[];
  whole: boolean;
}

/**
 * `select` as given (absent: undefined, the answer untouched). Each item may hold comma-separated names (REST's
 * `select=name,content.slug`). A name that is neither a field of `entryFields` nor a well-formed `content.<path>` is
 * 400 `BAD_REQUEST` with `details.parameter` `select` and `details.field`.
 */
export function parseSelect(
  value: readonly string[] | null | undefined,
  entryFields: ReadonlySet<string>,
): DocumentSelection | undefined {
  if (value === undefined || value === null) return undefined;
  const names = value.flatMap((v) => v.split(',')).map((v) => v.trim());
  const selection: DocumentSelection = { paths: [], whole: false };
  for (const field of names) {
    if (field === '') continue;
    const document = DOCUMENT_FIELD.exec(field);
    if (document) {
      const path = document[1].split('.');
      if (path.some((segment) => segment === '')) throw unknownField(field);
      selection.paths.push({ field, path });
    } else if (field === 'content') selection.whole = true;
    else if (!entryFields.has(field)) throw unknownField(field);
  }
  return selection;
}

function unknownField(field: string): BadRequestError {
  return new BadRequestError(`select names an unknown field "${field}".`, { parameter: SELECT_PARAMETER, field });
}

/** A selection's `content.<path>`s checked against the selected type's schema (400 naming the field otherwise). */
export function assertSelectablePaths(selection: DocumentSelection, schema: Record<string, unknown>): void {
  for (const { field, path } of selection.paths)
    assertDeclaredPath(schema, field, path, { parameter: SELECT_PARAMETER });
}

/** The document with only the selected paths, each at its nesting; a path absent in it is absent. */
export function selectDocument(
  content: Record<string, unknown> | null | undefined,
  selection: DocumentSelection,
): Record<string, unknown> | null | undefined {
  if (selection.whole || content === null || content === undefined) return content;
  const paths = selection.paths.map((p) => p.path);
  // A path under another selected one is held by it already (`content.author` beside `content.author.name`).
  const isPrefix = (short: string[], long: string[]) =>
    short.length < long.length && short.every((key, i) => key === long[i]);
  // No prototype: a `__proto__` path is a property like any other.
  const result = Object.create(null) as Record<string, unknown>;
  for (const path of paths) {
    if (paths.some((other) => isPrefix(other, path))) continue;
    let node: unknown = content;
    for (const key of path) node = isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
    if (node === undefined) continue;
    let target = result;
    for (const key of path.slice(0, -1)) {
      if (!Object.hasOwn(target, key)) target[key] = Object.create(null);
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1)!] = node;
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of an entry (its prototype kept) with its document pruned to the selection; the entry itself is untouched. */
export function withSelectedDocument<T extends { content?: Record<string, unknown> }>(
  entry: T,
  selection: DocumentSelection | undefined,
): T {
  if (!selection) return entry;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(entry) as object) as T, entry);
  copy.content = selectDocument(entry.content, selection) as Record<string, unknown>;
  return copy;
}
