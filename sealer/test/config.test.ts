import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { FIXTURE_CHAIN_PEM } from "../../test/api/fixtures/sealed-proof.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";

test("a container starting with an empty PKI_DIR makes the simulated authority's key material, and it answers", async () => {
  const pkiDir = join(mkdtempSync(join(tmpdir(), "container-")), "pki");
  // The live authority's chain is a file of the image (sealer/certs); any certificate stands in for it.
  const certsDir = mkdtempSync(join(tmpdir(), "certs-"));
  writeFileSync(join(certsDir, "tsa-chain.pem"), FIXTURE_CHAIN_PEM);
  const config = loadConfig({
    PKI_DIR: pkiDir,
    SEALER_CERTS_DIR: certsDir,
    TSA_URL: "https://tsa.example/tsr",
    C2PA_SIGNING_KEY_PEM: undefined,
  });
  assert.match(config.testAuthority.chainPem, /BEGIN CERTIFICATE/);
  assert.equal(config.liveAuthority.name, "tsa.example");
  const stamp = await obtainTimestamp(config.testAuthority, new TextEncoder().encode("first proof"));
  assert.equal(stamp.qualified, false);
});
