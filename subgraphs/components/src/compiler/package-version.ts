// TEMPORARY seam until feat/components lands.
export interface PackageSchemas {
  version: string;
  components: { name: string; schema: Record<string, unknown> }[];
}

export function nextPackageVersion(previous: PackageSchemas | null, _next: { name: string; schema: Record<string, unknown> }[]): string {
  if (!previous) return '1.0.0';
  const [a, b, c] = previous.version.split('.').map(Number);
  return `${a}.${b}.${c + 1}`;
}
