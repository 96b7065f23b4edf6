import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";

test("a container starting with an empty PKI_DIR makes the simulated authority's key material, and it answers", async () => {
  const pkiDir = join(mkdtempSync(join(tmpdir(), "container-")), "pki");
  const config = loadConfig({
    PKI_DIR: pkiDir,
    TSA_URL: "https://tsa.example/tsr",
    TSA_CHAIN_PEM: "",
    C2PA_SIGNING_KEY_PEM: undefined,
  });
  assert.match(config.testAuthority.chainPem, /BEGIN CERTIFICATE/);
  assert.equal(config.liveAuthority.name, "tsa.example");
  const stamp = await obtainTimestamp(config.testAuthority, new TextEncoder().encode("first proof"));
  assert.equal(stamp.qualified, false);
});
