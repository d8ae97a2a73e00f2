// The CDN address of an asset (spec: `{cdn_url}/{organizationId}/{projectId}/assets/{assetId}/{filename}`).
export function assetUrl(
  cdnUrl: string,
  asset: { organizationId: string; projectId: string; id: string; name: string },
): string {
  return `${cdnUrl}/${asset.organizationId}/${asset.projectId}/assets/${asset.id}/${encodeURIComponent(asset.name)}`;
}
