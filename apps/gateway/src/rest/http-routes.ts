// The HTTP routes the gateway serves beside GraphQL and sofa's REST routes: every module's (`SubgraphModule.httpRoutes`,
// a remote subgraph's included), its own event routes and the typed GraphQL endpoint, mounted (`mountHttpRoutes`, `@cp/host`) and documented
// exactly as declared.
import type { HttpRoute, SubgraphModule } from '@cp/host';
import { EVENT_HTTP_ROUTES } from '@cp/subgraph-server';
import { TYPED_HTTP_ROUTES } from '../typed/typed-http-routes';

/** Every HTTP route the gateway serves for these modules, as data (what the OpenAPI documents describe). */
export function gatewayHttpRoutes(modules: readonly SubgraphModule[]): readonly HttpRoute<never>[] {
  return [...modules.flatMap((m) => m.httpRoutes ?? []), ...EVENT_HTTP_ROUTES, ...TYPED_HTTP_ROUTES];
}
