// File storage shared by the subgraphs that keep bytes: local or S3 stores, streaming upload, type sniffing, CDN delivery.
export * from './storage';
export * from './s3-storage';
export * from './create-storage';
export * from './sniff';
export * from './upload';
export * from './deliver';
export * from './image-params';
export * from './image-variants';
export * from './openapi';
