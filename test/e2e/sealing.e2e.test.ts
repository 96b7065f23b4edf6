import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, fixture, waitForProof } from "./support/capture.ts";
import { launchChromium } from "./support/chromium.ts";

let stack: Stack;
const sealedTestProof: { id?: string; dir?: string; reference?: string } = {};
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/**
 * Revalidates `url` with `etag` until it answers 304: a 200 is accepted only with another ETag (the proof changed
 * meanwhile: its report or evidence record, made after the seal, or a re-hash, landed), then revalidated with that one.
 */
async function revalidatedUnchanged(url: string, etag: string): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const again = await fetch(url, { headers: { "If-None-Match": etag } });
    await again.arrayBuffer();
    if (again.status !== 200) return again.status;
    const next = again.headers.get("etag")!;
    expect(next, "a 200 to a revalidation names another version").not.toBe(etag);
    etag = next;
    await new Promise((done) => setTimeout(done, 500));
  }
  return 200;
}

describe("a real capture sealed on npm run dev", () => {
  for (const mode of ["test", "live"] as const) {
    it(`${mode}: sealed within seconds; the package verifies offline with sha256sum and openssl`, async () => {
      const key = mode === "test" ? stack.testKey : stack.liveKey;
      const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
        token: key,
        body: {
          name: "Photos and a walk-around",
          welcome: { title: "Hello" },
          steps: [
            { id: "photos", label: "Photos", instruction: "Every side", max_count: 5 },
            { id: "walkaround", label: "Video", instruction: "Walk around", kind: "video", max_count: 1 },
          ],
        },
      });
      const started = Date.now();
      const reference = `e2e-${mode}-${Date.now()}`;
      const { completed } = await captureOverHttp(
        stack,
        key,
        { external_reference: reference, party: "provider", stage: "checkin", template_id: template.body.id },
        [
          { file: "photo.jpg", type: "image/jpeg" },
          { file: "photo.png", type: "image/png" },
          { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
        ],
      );
      expect(completed.status).toBe(200);
      const proof = await waitForProof(stack, key, completed.body.proof_id, (p) => p.status !== "pending");
      expect(proof.status).toBe("sealed");
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(proof.timestamp).toMatchObject({ qualified: false });
      expect(proof.files).toHaveLength(3);

      const publicProof = await request(proof.verification_url.replace("/p/", "/v1/public/proofs/"));
      expect(publicProof.body.verification).toMatchObject({ status: "valid", test_mode: mode === "test" });
      expect(JSON.stringify(publicProof.body)).not.toMatch(/org_|sk_(test|live)_|capture_url/);
      expect(await revalidatedUnchanged(proof.verification_url.replace("/p/", "/v1/public/proofs/"), publicProof.headers.get("etag")!)).toBe(304);

      const dir = mkdtempSync(join(tmpdir(), "package-"));
      const zip = Buffer.from(await (await fetch(proof.package_url)).arrayBuffer());
      writeFileSync(join(dir, "proof.zip"), zip);
      execFileSync("unzip", ["-q", "proof.zip"], { cwd: dir });
      expect(execFileSync("unzip", ["-tq", "proof.zip"], { cwd: dir }).toString()).toMatch(/No errors/);
      expect(sha256(readFileSync(join(dir, "manifest.json")))).toBe(proof.manifest_sha256);
      const verdict = execFileSync("openssl", ["ts", "-verify", "-digest", proof.manifest_sha256, "-in", "proof.tsr", "-CAfile", "chain.pem"], {
        cwd: dir,
      }).toString();
      expect(verdict).toContain("Verification: OK");
      let otherDigest = "";
      try {
        execFileSync("openssl", ["ts", "-verify", "-digest", "0".repeat(64), "-in", "proof.tsr", "-CAfile", "chain.pem"], { cwd: dir, stdio: "pipe" });
      } catch (error) {
        otherDigest = String((error as { stdout?: Buffer }).stdout);
      }
      expect(otherDigest).not.toContain("Verification: OK");
      // The seal over the whole proof, checked against the service root the trust-anchors route publishes
      // (not the package's copy); the other mode's root refuses it.
      const anchors = await request(`${stack.baseUrl}/v1/public/trust-anchors`);
      const serviceRoots = anchors.body.data.filter((root: { kind: string }) => root.kind === "c2pa");
      const ownRoot = serviceRoots.find((root: { sha256: string }) => root.sha256 === publicProof.body.trust_anchors.c2pa_root_sha256);
      expect(ownRoot.mode).toBe(mode);
      const cmsVerify = (rootPem: string) => {
        writeFileSync(join(dir, "service-root.pem"), rootPem);
        const args = ["cms", "-verify", "-binary", "-inform", "DER", "-in", "manifest.p7s", "-content", "manifest.json", "-CAfile", "service-root.pem"];
        return spawnSync("openssl", [...args, "-purpose", "any", "-out", "/dev/null"], { cwd: dir }).status;
      };
      expect(cmsVerify(ownRoot.pem)).toBe(0);
      for (const other of serviceRoots.filter((root: { mode: string }) => root.mode !== mode)) expect(cmsVerify(other.pem)).not.toBe(0);
      expect(anchors.body.seal_certificates).toContainEqual(
        expect.objectContaining({ mode, status: "current", sha256: proof.seal.certificate_sha256, subject: proof.seal.certificate_subject }),
      );
      expect(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).version).toBe(2);
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      for (const file of manifest.files) {
        const name = execFileSync("ls", [join(dir, "files")])
          .toString()
          .split("\n")
          .find((n) => n.startsWith(file.id))!;
        expect(sha256(readFileSync(join(dir, "files", name)))).toBe(file.signed_sha256);
      }
      expect(readFileSync(join(dir, "VERIFY.md"), "utf8")).toContain("-attime");
      if (mode === "test") Object.assign(sealedTestProof, { id: proof.id, dir, reference });

      // An original answers for the proof named only (docs/adr/0060): the same bytes may be in anyone's proof.
      const byHash = await request(`${stack.baseUrl}/v1/public/verify`, { body: { sha256: sha256(fixture("photo.png")), proof_id: proof.id } });
      expect(byHash.body.data.some((m: any) => m.proof_id === proof.id && m.match === "original")).toBe(true);
      const signedBytes = readFileSync(
        join(
          dir,
          "files",
          execFileSync("ls", [join(dir, "files")])
            .toString()
            .split("\n")[0]!,
        ),
      );
      const byBytes = await fetch(`${stack.baseUrl}/v1/public/verify`, {
        method: "POST",
        headers: { "Content-Type": "application/octet-stream" },
        body: new Uint8Array(signedBytes),
      });
      const matches = (await byBytes.json()) as any;
      expect(matches.data.some((m: any) => m.proof_id === proof.id && m.match === "signed")).toBe(true);
    });
  }

  it("shows the verification page in English and French with the test banner, and recognises a dropped file", async ({ skip }) => {
    const browser = await launchChromium();
    if (!browser || !sealedTestProof.id) return skip();
    try {
      for (const [lang, banner, verdict] of [
        ["en", "simulated timestamp, no legal value", "Verified"],
        ["fr", "horodatage simulé, sans valeur légale", "Vérifiée"],
      ] as const) {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: lang === "fr" ? "fr-FR" : "en-US" });
        const page = await context.newPage();
        const response = await page.goto(`${stack.baseUrl}/p/${sealedTestProof.id}`);
        expect(response?.headers()["x-robots-tag"]).toBe("noindex");
        expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
        expect(await page.getByTestId("test-banner").textContent()).toContain(banner);
        expect(await page.getByTestId("verdict").textContent()).toContain(verdict);
        await page.screenshot({ path: join(import.meta.dirname, `../../test-results/verify-${lang}.png`), fullPage: true });
        const name = execFileSync("ls", [join(sealedTestProof.dir!, "files")])
          .toString()
          .split("\n")[0]!;
        await page.locator("#check-file").setInputFiles(join(sealedTestProof.dir!, "files", name));
        await expect.poll(() => page.getByTestId("check-result").getAttribute("class"), { timeout: 10_000 }).toBe("match");
        await page.locator("#check-file").setInputFiles(join(import.meta.dirname, "../../package.json"));
        await expect.poll(() => page.getByTestId("check-result").getAttribute("class"), { timeout: 10_000 }).toBe("no-match");
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });

  it("shows a sealed before/after pair side by side, step by step, on a phone-sized screen", async ({ skip }) => {
    const browser = await launchChromium();
    if (!browser || !sealedTestProof.id) return skip();
    try {
      const { completed } = await captureOverHttp(
        stack,
        stack.testKey,
        { external_reference: sealedTestProof.reference, party: "provider", stage: "checkout", compare_to: sealedTestProof.id },
        [
          { file: "photo.png", type: "image/png" },
          { file: "photo.jpg", type: "image/jpeg" },
          { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
        ],
      );
      expect(completed.status).toBe(200);
      const after = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending");
      expect(after).toMatchObject({ status: "sealed", compare_to: sealedTestProof.id });
      const context = await browser.newContext({ viewport: { width: 360, height: 800 }, locale: "de-DE" });
      const page = await context.newPage();
      await page.goto(`${stack.baseUrl}/p/${after.id}`);
      for (const step of ["photos", "walkaround"]) {
        const row = page.getByTestId(`step-${step}`);
        await expect.poll(() => row.locator('.files[data-side="before"] li').count()).toBeGreaterThan(0);
        expect(await row.locator('.files[data-side="after"] li').count()).toBeGreaterThan(0);
      }
      const photos = page.getByTestId("step-photos");
      expect(await photos.locator("h3").textContent()).toBe("Photos");
      expect(await page.getByTestId("side-before").textContent()).toContain("Vorher");
      expect(await page.getByTestId("side-after").textContent()).toContain("Nachher");
      const images = photos.locator("img");
      for (let i = 0; i < (await images.count()); i++) {
        await images.nth(i).scrollIntoViewIfNeeded();
        await expect.poll(() => images.nth(i).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: 10_000 }).toBe(true);
      }
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(pageWidth).toBeLessThanOrEqual(360);
      await page.screenshot({ path: join(import.meta.dirname, "../../test-results/verify-pair-de.png"), fullPage: true });
      await page.getByTestId("compared-with").locator("a").click();
      await page.waitForURL(new RegExp(`/p/${sealedTestProof.id}`));
      // The link back names the other side and its day; its identifier is in the address, not the text (issue 13).
      expect(await page.getByTestId("compared-with").locator("a").getAttribute("href")).toContain(`/p/${after.id}`);
      expect(await page.getByTestId("compared-with").textContent()).toMatch(/^Nachher · \d{2}\.\d{2}\.\d{4}$/);
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it("fails a tampered capture with the right code, and the health check sees the authority", async () => {
    const jpeg = fixture("photo.jpg");
    const truncated = jpeg.subarray(0, 20_000);
    const { completed } = await captureOverHttp(stack, stack.testKey, { external_reference: `e2e-bad-${Date.now()}`, party: "recipient" }, [
      { file: "truncated.jpg", type: "image/jpeg", bytes: Buffer.from(truncated) },
    ]);
    const proof = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending");
    expect(proof).toMatchObject({ status: "failed", failure: { code: "file_corrupt" } });
    const health = await request(`${stack.baseUrl}/health/details`, { token: stack.supervisionToken });
    expect(health.body.checks.timestamp_authority.status).toBe("ok");
  });
});
