// Whether a document names a field or directive among some names (introspection, `@skip`/`@include`).
import { BREAK, visit, type DocumentNode } from 'graphql';

/** True when a field (`Field`) or directive (`Directive`) of the document is named one of `names`. */
export function namesAny(document: DocumentNode, kind: 'Field' | 'Directive', names: readonly string[]): boolean {
  let found = false;
  visit(document, {
    [kind](node: { name: { value: string } }) {
      if (names.includes(node.name.value)) return ((found = true), BREAK);
      return undefined;
    },
  });
  return found;
}
