// REST selects `includes` only when a request asks for them, and then once, at the root, with the route's entry members.
import { buildSchema, parse, print } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asksForIncludes, withoutIncludes, withRootIncludes } from './includes';

const schema = buildSchema(readFileSync(join(__dirname, '../../../schema/api.graphql'), 'utf8'));
const normal = (text: string) => print(parse(text));

describe('includes on REST routes', () => {
  const list = parse(`query Q($include: Int) {
    contents(organizationId: "o", projectId: "p", include: $include) {
      data { id name createdBy { id } includes { assets { id url } } }
      pagination { lastKey }
      includes { content { id } assets { id url } }
    }
  }`);

  it('drops every `includes` selection unless asked for', () => {
    expect(print(withoutIncludes(schema, list))).toBe(
      normal(`query Q($include: Int) {
        contents(organizationId: "o", projectId: "p", include: $include) {
          data { id name createdBy { id } }
          pagination { lastKey }
        }
      }`),
    );
  });

  it('selects `includes` once, at the root: entries as the page’s items, assets as sofa selects them', () => {
    expect(print(withRootIncludes(schema, list)!)).toBe(
      normal(`query Q($include: Int) {
        contents(organizationId: "o", projectId: "p", include: $include) {
          data { id name createdBy { id } }
          pagination { lastKey }
          includes { content { id name createdBy { id } } assets { id url } }
        }
      }`),
    );
    // A single entry's own members, minus what the entry type lacks (`contentType` of the resolved view).
    const resolved = parse(`{ resolvedContent(organizationId: "o", projectId: "p", id: "x") {
      id contentType { version } includes { assets { id } } } }`);
    expect(print(withRootIncludes(schema, resolved)!)).toBe(
      normal(`{ resolvedContent(organizationId: "o", projectId: "p", id: "x") {
        id contentType { version } includes { content { id } assets { id } } } }`),
    );
    // Routes whose value has no `includes`: nothing to add.
    expect(
      withRootIncludes(schema, parse(`{ contentTypes(organizationId: "o", projectId: "p") { data { id } } }`)),
    ).toBe(undefined);
  });

  it('asks for includes when `include` is given and not 0 (query parameter or body member)', () => {
    expect(asksForIncludes({}, undefined)).toBe(false);
    expect(asksForIncludes({ include: '0' }, undefined)).toBe(false);
    expect(asksForIncludes({}, { include: 0 })).toBe(false);
    expect(asksForIncludes({ include: '2' }, undefined)).toBe(true);
    expect(asksForIncludes({}, { include: 1 })).toBe(true);
    // Refused by the resolver, which must run: 400 naming the parameter.
    expect(asksForIncludes({ include: '9' }, undefined)).toBe(true);
  });
});
