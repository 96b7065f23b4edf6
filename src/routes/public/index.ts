import type { App } from "../../app.ts";
import { registerGetPublicProof } from "./get.ts";
import { registerGetPublicProofFile } from "./file.ts";
import { registerGetPublicProofThumbnail } from "./thumbnail.ts";
import { registerGetPublicProofPackage } from "./package.ts";
import { registerPublicVerify } from "./verify.ts";
import { registerListTrustAnchors } from "./trust-anchors.ts";
import { registerGetPublicReports } from "./report.ts";

/** The routes anyone may call, without a credential, to verify a proof. */
export function registerPublicRoutes(app: App) {
  registerGetPublicProof(app);
  registerGetPublicProofFile(app);
  registerGetPublicProofThumbnail(app);
  registerGetPublicProofPackage(app);
  registerGetPublicReports(app);
  registerPublicVerify(app);
  registerListTrustAnchors(app);
}
