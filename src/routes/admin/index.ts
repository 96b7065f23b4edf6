import type { App } from "../../app.ts";
import { registerCreateOrganization } from "./create-organization.ts";
import { registerCreateApiKey } from "./create-api-key.ts";
import { registerRevokeApiKey } from "./revoke-api-key.ts";
import { registerAdjustBalance } from "./adjust-balance.ts";
import { registerListAlteredObjects } from "./list-altered-objects.ts";
import { registerAddWriteShard } from "./add-write-shard.ts";

/** Operator routes: hidden from the public OpenAPI document, authenticated with ADMIN_TOKEN. */
export function registerAdminRoutes(app: App) {
  registerCreateOrganization(app);
  registerCreateApiKey(app);
  registerRevokeApiKey(app);
  registerAdjustBalance(app);
  registerListAlteredObjects(app);
  registerAddWriteShard(app);
}
