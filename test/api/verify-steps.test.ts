import { describe, expect, it } from "vitest";
import type { ProofRow } from "../../src/storage/rows.ts";
import { verifySteps } from "../../src/verification/verify-steps.ts";

/** The fields of a sealed proof VERIFY.md's steps read. */
const proof = (mode: "test" | "live") =>
  ({ mode, timestampGenTime: "2026-11-26T12:00:00.000Z", sealCertificateSha256: "ab".repeat(32) }) as unknown as ProofRow;

describe("VERIFY.md's steps 5 and 8 (src/verification/verify-steps.ts)", () => {
  it("says exactly what proof-verify's last line must be, for a live proof and for a test proof, in both languages", () => {
    for (const hasEvidenceRecord of [false, true]) {
      const live = verifySteps(proof("live"), [], "en", [], hasEvidenceRecord);
      expect(live).toContain("Its last line must be exactly `VERIFIED`.");
      expect(live).not.toContain("TEST PROOF");
      const test = verifySteps(proof("test"), [], "en", [], hasEvidenceRecord);
      expect(test).toContain("Its last line must be exactly `VERIFIED (TEST PROOF, no legal value)`.");
      expect(verifySteps(proof("test"), [], "fr", [], hasEvidenceRecord)).toContain(
        "Sa dernière ligne doit être exactement `VERIFIED (TEST PROOF, no legal value)`.",
      );
    }
  });

  it("step 5 says c2patool's Trusted also covers a signer under the authority's root, and that proof-verify checks the issuer", () => {
    expect(verifySteps(proof("live"), [], "en")).toContain("`Trusted` alone is not enough");
    expect(verifySteps(proof("live"), [], "fr")).toContain("`Trusted` ne suffit pas");
  });
});
