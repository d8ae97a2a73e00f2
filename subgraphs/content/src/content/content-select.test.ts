import { describe, expect, it } from 'vitest';
import { parseSelect, selectDocument, withSelectedDocument } from './content-select';

const FIELDS = new Set(['id', 'name', 'content']);
const doc = { slug: 's', author: { name: 'Ada', bio: 'b' }, gallery: [{ url: 'u' }] };

describe('select', () => {
  it('keeps the named paths at their nesting; absent paths stay absent', () => {
    const of = (names: string[]) => JSON.parse(JSON.stringify(selectDocument(doc, parseSelect(names, FIELDS)!)));
    expect(of(['content.author.name'])).toEqual({ author: { name: 'Ada' } });
    expect(of(['content.author.name', 'content.author'])).toEqual({ author: doc.author });
    expect(of(['content.slug,content.nope.x'])).toEqual({ slug: 's' });
    expect(of(['name'])).toEqual({});
    expect(of(['content', 'content.slug'])).toEqual(doc);
    expect(of(['content.__proto__'])).toEqual({});
  });

  it('refuses unknown fields and malformed paths, naming select', () => {
    for (const name of ['nope', 'content.', 'content.a..b'])
      expect(() => parseSelect([name], FIELDS)).toThrow(
        expect.objectContaining({ details: { parameter: 'select', field: name } }),
      );
    expect(parseSelect(undefined, FIELDS)).toBeUndefined();
  });

  it('copies the entry, never changes it', () => {
    class Entry {
      id = '1';
      content: Record<string, unknown> = doc;
    }
    const entry = new Entry();
    const copy = withSelectedDocument(entry, parseSelect(['content.slug'], FIELDS));
    expect(copy).toBeInstanceOf(Entry);
    expect(entry.content).toBe(doc);
    expect(JSON.parse(JSON.stringify(copy.content))).toEqual({ slug: 's' });
  });
});
