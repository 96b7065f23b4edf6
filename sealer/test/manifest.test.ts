import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson } from "../../shared/canonical-json.ts";
import { SealJobSchema } from "../../shared/sealer-protocol.ts";
import { buildManifest } from "../src/manifest.ts";
import { job } from "./storage-stand-in.ts";
import { sha256 } from "./support.ts";

test("canonical JSON sorts keys by UTF-16 code units, drops white space, keeps array order", () => {
  assert.equal(canonicalJson({ b: 1, a: [3, { d: null, c: "é" }], "€": true, "\u0080": 2 }), '{"a":[3,{"c":"é","d":null}],"b":1,"\u0080":2,"€":true}');
  assert.equal(canonicalJson({ z: 1, a: 2 }), canonicalJson({ a: 2, z: 1 }));
});

test("canonical JSON serialises numbers as ECMAScript does", () => {
  assert.equal(canonicalJson([1e21, 0.1, -0, 1.5e-7, 100]), "[1e+21,0.1,0,1.5e-7,100]");
});

test("manifest version 2 names the organization, the before by id and manifest hash, and each file's position and prior credentials", () => {
  const sealJob = job([
    { name: "photo.jpg", type: "image/jpeg" },
    { name: "photo.png", type: "image/png" },
    { name: "photo.jpg", type: "image/jpeg" },
  ]);
  sealJob.files[1]!.step_id = "meter";
  sealJob.files[1]!.position = 1;
  sealJob.files[2]!.position = 2;
  sealJob.proof.compare_to = "prf_before";
  sealJob.proof.compare_to_manifest_sha256 = "AB".repeat(32);
  const sealed = new Map(sealJob.files.map((file, index) => [file.id, { signed_sha256: String(index).repeat(64), prior_credentials: index === 2 }]));
  const { json, sha256: digest } = buildManifest(sealJob, sealed);
  assert.equal(digest, sha256(json));
  assert.equal(json, canonicalJson(JSON.parse(json)), "canonical: sorted keys, no white space");
  const manifest = JSON.parse(json);
  assert.equal(manifest.version, 2);
  assert.equal(manifest.organization_id, "org_1");
  assert.equal(manifest.template_sha256, sealJob.proof.template_sha256);
  assert.deepEqual(manifest.compare_to, { proof_id: "prf_before", manifest_sha256: "ab".repeat(32) });
  assert.deepEqual(
    manifest.files.map((file: { step_id: string; position: number; prior_credentials: boolean; signed_sha256: string }) => [
      file.step_id,
      file.position,
      file.prior_credentials,
      file.signed_sha256,
    ]),
    [
      ["photos", 1, false, "0".repeat(64)],
      ["meter", 1, false, "1".repeat(64)],
      ["photos", 2, true, "2".repeat(64)],
    ],
  );
  assert.deepEqual(Object.keys(manifest.files[0]), [
    "captured_at",
    "content_type",
    "id",
    "kind",
    "position",
    "prior_credentials",
    "sha256",
    "signed_sha256",
    "size",
    "step_id",
  ]);
});

test("an ordinary proof's manifest compares to nothing, and a file the sealer did not seal cannot be listed", () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  const manifest = JSON.parse(buildManifest(sealJob, new Map([[sealJob.files[0]!.id, { signed_sha256: "0".repeat(64), prior_credentials: false }]])).json);
  assert.equal(manifest.compare_to, null);
  assert.throws(() => buildManifest(sealJob, new Map()), /not sealed/);
});

test("a job that names its before without the before's manifest hash, or the hash without a before, is refused", () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  assert.equal(SealJobSchema.safeParse(sealJob).success, true);
  const withoutHash = { ...sealJob, proof: { ...sealJob.proof, compare_to: "prf_before" } };
  assert.deepEqual(SealJobSchema.safeParse(withoutHash).error?.issues[0]?.path, ["proof", "compare_to_manifest_sha256"]);
  const withoutBefore = { ...sealJob, proof: { ...sealJob.proof, compare_to_manifest_sha256: "a".repeat(64) } };
  assert.equal(SealJobSchema.safeParse(withoutBefore).success, false);
  const withoutPosition = { ...sealJob, files: [{ ...sealJob.files[0]!, position: 0 }] };
  assert.equal(SealJobSchema.safeParse(withoutPosition).success, false);
});
