// The components module's HTTP routes: multipart upload of a component's assets and their CDN delivery, each
// with its OpenAPI operation; the gateway mounts and documents them as declared.
import { errorResponses, successHeaders } from '@cp/errors';
import { PROJECT_PATH } from '@cp/graphql';
import type { HttpRoute } from '@cp/host';
import { DELIVERY_DESCRIPTION, DELIVERY_PARAMETERS, DELIVERY_RESPONSES, uploadRequestBody } from '@cp/storage';
import { createComponentAssetService } from './component-asset.factory';
import { componentAssetCdnHandler, componentAssetUploadHandler } from './component-asset.http';

const upload: HttpRoute = {
  method: 'post',
  path: `/app/v1${PROJECT_PATH}/components/:componentId/assets`,
  family: 'app',
  auth: 'credential',
  operation: {
    operationId: 'uploadComponentAsset',
    tags: ['components'],
    summary: 'Upload an asset of a component (multipart/form-data).',
    description: 'Created `uploading`, then `processing` while the type is sniffed, then `active` (or `error`).',
    requestBody: uploadRequestBody({}),
    responses: {
      '201': {
        description: 'The component asset.',
        headers: successHeaders(true),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ComponentAsset' } } },
      },
      ...errorResponses({ authenticated: true, write: false, body: true, upload: true }),
    },
  },
  handler: ({ config }) => componentAssetUploadHandler(createComponentAssetService(config), config.http.cdnUrl),
};

const cdn: HttpRoute = {
  method: 'get',
  path: '/cdn/:organizationId/:projectId/component-assets/:assetId/:filename',
  family: 'cdn',
  auth: 'public',
  operation: {
    operationId: 'deliverComponentAsset',
    tags: ['cdn'],
    summary: 'The bytes of an active component asset (public).',
    description: DELIVERY_DESCRIPTION,
    parameters: DELIVERY_PARAMETERS,
    responses: {
      ...DELIVERY_RESPONSES,
      ...errorResponses({ authenticated: false, write: false, body: false, image: false }),
    },
  },
  handler: ({ config, orm }) => componentAssetCdnHandler(orm, createComponentAssetService(config)),
};

export const componentAssetHttpRoutes: readonly HttpRoute[] = [upload, cdn];
