import { test } from "node:test";
import assert from "node:assert/strict";
import { canCarryC2pa, signWithC2pa, readC2pa } from "../src/c2pa/c2pa.ts";
import { coseSign1 } from "../src/c2pa/cose.ts";
import { sniffType } from "../src/verify-file.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";
import { fixture, sealContext } from "./support.ts";

const context = sealContext();
const signer = {
  key: context.key,
  chainDer: context.chainDer,
  timestamp: async (message: Uint8Array) => (await obtainTimestamp(context.authority, message)).token,
};
const assertions = [
  {
    label: "c2pa.actions",
    data: { actions: [{ action: "c2pa.created", digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture" }] },
  },
  { label: "com.proofseal.capture", data: { proof_id: "prf_test", step_id: "photos" } },
];

test("a COSE_Sign1 has tag 18, ES256 with the chain in its protected header, and exactly the reserved size", async () => {
  const cose = await coseSign1({ ...signer, timestamp: null }, new Uint8Array([1, 2, 3]), 4096);
  assert.equal(cose.length, 4096);
  assert.equal(cose[0], 0xd2); // tag 18
  assert.equal(cose[1], 0x84); // array of 4
  assert.equal(cose[2]! >> 5, 2); // protected header as a byte string
  const protectedStart = cose[2] === 0x59 ? 5 : cose[2] === 0x58 ? 4 : 3;
  assert.equal(cose[protectedStart], 0xa2); // map of 2: alg and x5chain
  assert.deepEqual([...cose.subarray(protectedStart + 1, protectedStart + 3)], [0x01, 0x26]); // 1: -7
});

const SIGNABLE = [
  ["photo.jpg", "image/jpeg"],
  ["photo.png", "image/png"],
  ["photo.heic", "image/heic"],
  ["photo.webp", "image/webp"],
  ["clip.mp4", "video/mp4"],
  ["clip.mov", "video/quicktime"],
] as const;

for (const [file, format] of SIGNABLE) {
  test(`signs a ${format} that the c2pa-rs reader trusts with our root, timestamp validated`, async () => {
    assert.equal(sniffType(fixture(file)), format);
    const signed = await signWithC2pa(fixture(file), { title: file, format, assertions }, signer);
    const untrusted = await readC2pa(signed, format);
    assert.equal(untrusted.state, "Valid");
    const trusted = await readC2pa(signed, format, context.trustAnchorPem);
    assert.equal(trusted.state, "Trusted");
    assert.ok(trusted.codes.includes("timeStamp.validated"));
    assert.ok(trusted.codes.includes("claimSignature.validated"));
    const labels = ((trusted.activeManifest?.assertions ?? []) as { label: string }[]).map((a) => a.label);
    assert.ok(labels.includes("com.proofseal.capture"));
  });
}

test("c2pa-rs cannot embed into WebM, which is why a WebM is sealed by the manifest alone (drop the exception when this fails)", async () => {
  assert.equal(canCarryC2pa("video/webm"), false);
  await assert.rejects(signWithC2pa(fixture("clip.webm"), { title: "clip", format: "video/webm", assertions }, signer));
  for (const [, format] of SIGNABLE) assert.equal(canCarryC2pa(format), true);
});

test("a flipped byte in the signed picture makes it Invalid", async () => {
  const signed = await signWithC2pa(fixture("photo.jpg"), { title: "x", format: "image/jpeg", assertions }, signer);
  const tampered = signed.slice();
  tampered[tampered.length - 200]! ^= 0xff;
  assert.equal((await readC2pa(tampered, "image/jpeg", context.trustAnchorPem)).state, "Invalid");
  assert.equal((await readC2pa(fixture("photo.jpg"), "image/jpeg")).state, "Invalid");
});

test("the parent ingredient reads an earlier manifest from the bytes only when asked (reading a file with none costs c2pa-rs a pass over it)", async () => {
  const opened = [{ label: "c2pa.actions", data: { actions: [{ action: "c2pa.opened", parameters: { ingredientIds: ["original"] } }] }, created: true }];
  const earlier = await signWithC2pa(fixture("photo.jpg"), { title: "earlier", format: "image/jpeg", assertions }, signer);
  const parentOf = async (readManifest: boolean) => {
    const signed = await signWithC2pa(
      earlier,
      { title: "again", format: "image/jpeg", assertions: opened, parent: { label: "original", readManifest } },
      signer,
    );
    const reading = await readC2pa(signed, "image/jpeg", context.trustAnchorPem);
    assert.equal(reading.state, "Trusted");
    return (reading.activeManifest!.ingredients as { relationship: string; active_manifest?: string }[])[0]!;
  };
  assert.ok((await parentOf(true)).active_manifest, "the earlier manifest is kept");
  const described = await parentOf(false);
  assert.equal(described.relationship, "parentOf");
  assert.equal(described.active_manifest, undefined, "described from the definition alone");
});
