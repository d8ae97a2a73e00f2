// The CDN address of a component asset: `{cdn_url}/{organizationId}/{projectId}/component-assets/{assetId}/{filename}`.
export function componentAssetUrl(
  cdnUrl: string,
  asset: { organizationId: string; projectId: string; id: string; name: string },
): string {
  return `${cdnUrl}/${asset.organizationId}/${asset.projectId}/component-assets/${asset.id}/${encodeURIComponent(asset.name)}`;
}
