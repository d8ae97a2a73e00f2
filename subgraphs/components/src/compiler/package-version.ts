// The next package version: major on incompatible props changes, minor on additions, patch otherwise.
import semver from 'semver';

export interface ComponentSchema {
  name: string;
  schema: Record<string, unknown>;
}

export interface PackageSchemas {
  version: string;
  components: ComponentSchema[];
}

type Change = 'breaking' | 'extended' | 'none';

type JsonSchema = { type?: unknown; properties?: Record<string, JsonSchema>; required?: string[]; items?: JsonSchema };

/** How `next` relates to `previous` for a client that renders with props valid under `previous`. */
export function schemaChange(previous: JsonSchema, next: JsonSchema): Change {
  if (JSON.stringify(previous.type) !== JSON.stringify(next.type)) return 'breaking';
  let change: Change = 'none';
  const before = previous.properties ?? {};
  const after = next.properties ?? {};
  const requiredBefore = new Set(previous.required ?? []);
  for (const name of next.required ?? []) if (!requiredBefore.has(name)) return 'breaking';
  for (const [name, schema] of Object.entries(before)) {
    if (!(name in after)) return 'breaking';
    const nested = schemaChange(schema, after[name]);
    if (nested === 'breaking') return 'breaking';
    if (nested === 'extended') change = 'extended';
  }
  if (Object.keys(after).some((name) => !(name in before))) change = 'extended';
  if (previous.items && next.items) {
    const items = schemaChange(previous.items, next.items);
    if (items !== 'none') return items;
  }
  return change;
}

export function nextPackageVersion(previous: PackageSchemas | null, next: ComponentSchema[]): string {
  if (!previous) return '1.0.0';
  const before = new Map(previous.components.map((c) => [c.name, c.schema]));
  const after = new Map(next.map((c) => [c.name, c.schema]));
  let bump: 'major' | 'minor' | 'patch' = 'patch';
  for (const [name, schema] of before) {
    const current = after.get(name);
    const change = current ? schemaChange(schema, current) : 'breaking';
    if (change === 'breaking') return semver.inc(previous.version, 'major')!;
    if (change === 'extended') bump = 'minor';
  }
  if ([...after.keys()].some((name) => !before.has(name))) bump = 'minor';
  return semver.inc(previous.version, bump)!;
}
