import { createApp, type App } from "../app.ts";
import { registerHealthRoutes } from "./health/index.ts";
import { registerGetMe } from "./me/get.ts";
import { registerGetErrorDescription } from "./errors/get.ts";
import { registerAdminRoutes } from "./admin/index.ts";
import { registerOpenApiRoutes } from "./openapi/index.ts";
import { registerCaptureTemplateRoutes } from "./capture-templates/index.ts";
import { registerCaptureThemeRoutes } from "./capture-themes/index.ts";
import { registerSettingsRoutes } from "./settings/index.ts";
import { registerCreateCaptureSession } from "./capture-sessions/create.ts";
import { registerGetCaptureSession } from "./capture-sessions/get.ts";
import { registerCaptureRoutes } from "./capture/index.ts";
import { registerGetProof } from "./proofs/get.ts";
import { registerListProofs } from "./proofs/list.ts";
import { registerPublicRoutes } from "./public/index.ts";
import { registerListEvents } from "./events/list.ts";
import { registerVerificationPage } from "./verification-page/route.ts";
import { registerWebhookEndpointRoutes } from "./webhook-endpoints/index.ts";
import { registerWebhookDeliveryRoutes } from "./webhook-deliveries/index.ts";
import { registerLocalSignedStorage } from "./storage/local-signed.ts";
import { registerStaticAssets } from "./static-assets.ts";
import { cors } from "hono/cors";
import { databaseOfCaptureTokenInPath, databaseOfProofInPath } from "../middleware/database-of-path.ts";

/** The API host (`base_url`): every public route, the operator routes and the schema. */
export function createApiApp(): App {
  const app = createApp();
  // Routes without an API key open the shard their proof id names (docs/adr/0062); `/:id/*` matches `/:id` too.
  app.use("/v1/public/proofs/:id/*", databaseOfProofInPath);
  app.use("/p/:id", databaseOfProofInPath);
  registerHealthRoutes(app);
  registerGetMe(app);
  registerGetErrorDescription(app);
  registerCreateCaptureSession(app);
  registerListProofs(app);
  registerGetProof(app);
  registerListEvents(app);
  registerWebhookEndpointRoutes(app);
  registerWebhookDeliveryRoutes(app);
  registerVerificationPage(app);
  // Anyone may verify from anywhere: the public routes need no credential, so any web page may call them.
  app.use(
    "/v1/public/*",
    cors({
      origin: "*",
      allowMethods: ["GET", "POST"],
      allowHeaders: ["Content-Type", "If-None-Match"],
      exposeHeaders: ["ETag", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Proof-Mode"],
      maxAge: 86_400,
    }),
  );
  registerPublicRoutes(app);
  registerGetCaptureSession(app);
  registerCaptureTemplateRoutes(app);
  registerCaptureThemeRoutes(app);
  registerSettingsRoutes(app);
  registerAdminRoutes(app);
  registerOpenApiRoutes(app);
  registerStaticAssets(app);
  return app;
}

/** The capture host (`capture_url_host`): the capture page and its JSON routes only. */
export function createCaptureApp(): App {
  const app = createApp();
  // The capture routes open the shard their link's token names (docs/adr/0062).
  app.use("/c/:token/*", databaseOfCaptureTokenInPath);
  registerCaptureRoutes(app);
  registerLocalSignedStorage(app);
  registerStaticAssets(app);
  return app;
}
