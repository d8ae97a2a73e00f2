// Scalars shared by the subgraphs: JSON values for schemas, metadata and content documents.
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';

export { GraphQLJSON as JSONScalar, GraphQLJSONObject as JSONObjectScalar };
