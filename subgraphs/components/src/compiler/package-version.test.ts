import { describe, expect, it } from 'vitest';
import { nextPackageVersion } from './package-version';

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});
const str = { type: 'string' };
const num = { type: 'number' };
const prev = (components: { name: string; schema: Record<string, unknown> }[], version = '1.2.3') => ({
  version,
  components,
});

describe('package versions', () => {
  it('starts at 1.0.0', () => {
    expect(nextPackageVersion(null, [{ name: 'Hero', schema: obj({ title: str }) }])).toBe('1.0.0');
  });

  it.each([
    ['a property removed', obj({ title: str, sub: str }), obj({ title: str }), '2.0.0'],
    ['a property retyped', obj({ title: str }), obj({ title: num }), '2.0.0'],
    ['a new required property', obj({ title: str }), obj({ title: str, cta: str }, ['cta']), '2.0.0'],
    ['an optional property made required', obj({ title: str }), obj({ title: str }, ['title']), '2.0.0'],
    [
      'a nested property removed',
      obj({ link: obj({ href: str, label: str }) }),
      obj({ link: obj({ href: str }) }),
      '2.0.0',
    ],
    ['a new optional property', obj({ title: str }), obj({ title: str, sub: str }), '1.3.0'],
    ['a required property made optional', obj({ title: str }, ['title']), obj({ title: str }), '1.2.4'],
    [
      'only descriptions or constraints',
      obj({ title: str }),
      obj({ title: { type: 'string', description: 'x', minLength: 1 } }),
      '1.2.4',
    ],
  ])('%s', (_case, before, after, expected) => {
    expect(nextPackageVersion(prev([{ name: 'Hero', schema: before }]), [{ name: 'Hero', schema: after }])).toBe(
      expected,
    );
  });

  it('is major when a component leaves the library and minor when one joins', () => {
    const hero = { name: 'Hero', schema: obj({ title: str }) };
    const card = { name: 'Card', schema: obj({}) };
    expect(nextPackageVersion(prev([hero, card]), [hero])).toBe('2.0.0');
    expect(nextPackageVersion(prev([hero]), [hero, card])).toBe('1.3.0');
    expect(nextPackageVersion(prev([hero]), [hero])).toBe('1.2.4');
  });
});
