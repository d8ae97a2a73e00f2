// Whether a resolver's caller selected a nested field, so a read can skip columns nobody asked for.
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * True when the selection under the resolved field reaches `path` (e.g. `['data', 'compiled']`), through inline
 * fragments and fragment spreads. `@skip`/`@include` are not evaluated: a conditional selection counts as selected.
 */
export function selects(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, path: readonly string[]): boolean {
  const within = (set: SelectionSetNode | undefined, rest: readonly string[]): boolean =>
    set !== undefined &&
    set.selections.some((s) => {
      if (s.kind === Kind.FIELD)
        return s.name.value === rest[0] && (rest.length === 1 || within(s.selectionSet, rest.slice(1)));
      if (s.kind === Kind.INLINE_FRAGMENT) return within(s.selectionSet, rest);
      return within(info.fragments[s.name.value]?.selectionSet, rest);
    });
  return info.fieldNodes.some((node) => within(node.selectionSet, path));
}
