// The assets module's HTTP routes: multipart upload and CDN delivery with image variants, each with its
// OpenAPI operation; the gateway mounts and documents them as declared.
import { errorResponses, successHeaders } from '@cp/errors';
import { PROJECT_PATH } from '@cp/graphql';
import type { HttpRoute } from '@cp/host';
import {
  DELIVERY_DESCRIPTION,
  DELIVERY_PARAMETERS,
  DELIVERY_RESPONSES,
  IMAGE_PARAMETERS,
  ImageVariants,
  uploadRequestBody,
} from '@cp/storage';
import { createAssetService } from './asset.factory';
import { cdnHandler, uploadHandler } from './asset.http';
import { sqlVariantLease } from './variant-lease';

const upload: HttpRoute = {
  method: 'post',
  path: `/app/v1${PROJECT_PATH}/assets`,
  family: 'app',
  auth: 'credential',
  operation: {
    operationId: 'uploadAsset',
    tags: ['assets'],
    summary: 'Upload an asset (multipart/form-data).',
    description:
      'Streams `file` to storage, computing size and sha256; over `MAX_UPLOAD_BYTES` is 413 with nothing kept.',
    requestBody: uploadRequestBody({
      tags: { type: 'string', description: 'Tag names: a JSON array or a comma-separated list.' },
      folderId: { type: 'string', description: 'Folder to file the asset in.' },
      metadata: { type: 'string', description: 'A JSON object.' },
    }),
    responses: {
      '201': {
        description: 'The stored asset, as `GET …/assets/{id}` returns it.',
        headers: successHeaders(true),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Asset' } } },
      },
      ...errorResponses({ authenticated: true, write: false, body: true, upload: true }),
    },
  },
  handler: ({ config }) => uploadHandler(createAssetService(config), config.http.cdnUrl),
};

const cdn: HttpRoute = {
  method: 'get',
  path: '/cdn/:organizationId/:projectId/assets/:assetId/:filename',
  family: 'cdn',
  auth: 'public',
  operation: {
    operationId: 'deliverAsset',
    tags: ['cdn'],
    summary: 'The bytes of an active asset (public).',
    description:
      DELIVERY_DESCRIPTION +
      ' Image parameters answer a stored variant with its own `ETag` (`Vary: Accept` with `fm=auto`); ' +
      'without parameters the original bytes.',
    parameters: [...IMAGE_PARAMETERS, ...DELIVERY_PARAMETERS],
    responses: {
      ...DELIVERY_RESPONSES,
      ...errorResponses({ authenticated: false, write: false, body: false, image: true }),
    },
  },
  handler({ config, orm }) {
    const assets = createAssetService(config);
    // One per process: the single-flight map and the work queue bound this process's transformations.
    return cdnHandler(orm, assets, new ImageVariants(assets.storage, sqlVariantLease(orm), config.images));
  },
};

export const assetHttpRoutes: readonly HttpRoute[] = [upload, cdn];
