import { apiRoutes } from '#shared/config/api-routes.ts';
import { originVerifySecretsFrom } from '#shared/config/origin-verify.ts';
import { createPublicHandler } from '#shared/http/api-handler.ts';
import { explainUnmatchedRoute } from '#shared/http/route-matcher.ts';

const explain = explainUnmatchedRoute(apiRoutes);

export const handler = createPublicHandler(
  (event) => explain(event.requestContext.http.method, event.rawPath),
  originVerifySecretsFrom(),
);
