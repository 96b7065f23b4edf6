import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";
import { PAGE_LANGUAGES, PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import { packagedArtifactKey, proofArtifactKeys } from "../../src/storage/objects/bucket.ts";
import { opensslFingerprint } from "../../shared/trust-anchors.ts";
import { FIXTURE_CHAIN_PEM, OTHER_ROOT_PEM } from "./fixtures/sealed-proof.ts";
import { V2_CHAIN_PEM, V2_MANIFEST, V2_P7S_BASE64, V2_SERVICE_ROOT_PEM, V2_TSR_BASE64 } from "./fixtures/sealed-proof-v2.ts";
import { SIGNAL_CODES } from "../../shared/integrity-signals.ts";

const SNAPSHOT = JSON.stringify({
  default_locale: "en",
  steps: [
    { id: "front", label: { en: "Front of the car", fr: "Avant du véhicule", de: "Fahrzeugfront" } },
    { id: "photos", label: "Interior" },
  ],
});

async function proofWithSnapshot(organizationId: string) {
  const inserted = await insertPendingProof(organizationId, "test", 2);
  await setSessionSnapshot(inserted.sessionId, SNAPSHOT);
  await env.DB.prepare("UPDATE files SET step_id = 'front' WHERE id = ?").bind(inserted.fileIds[0]).run();
  return inserted;
}

async function sealedProof(organizationId: string) {
  const inserted = await proofWithSnapshot(organizationId);
  // Sealed as the sealing records it (tested in sealing.test.ts); the page reads the verification kept beside the artifacts.
  await env.DB.prepare(
    "UPDATE proofs SET status = 'sealed', manifest_sha256 = ?, timestamp_gen_time = '2026-11-22T10:00:00Z', timestamp_authority = 'Test TSA', timestamp_qualified = 0, timestamp_serial = '01', timestamp_policy = '1.2.3', sealed_at = '2026-11-22T10:00:01Z' WHERE id = ?",
  )
    .bind("a".repeat(64), inserted.proofId)
    .run();
  await env.DB.prepare("UPDATE files SET signed_sha256 = ?, signed_size = 100 WHERE proof_id = ?").bind("b".repeat(64), inserted.proofId).run();
  await env.DB.prepare("UPDATE files SET decoded = ? WHERE id = ?")
    .bind(JSON.stringify({ width: 4000, height: 3000, duration_ms: null }), inserted.fileIds[0])
    .run();
  await env.DB.prepare("UPDATE files SET kind = 'video', content_type = 'video/mp4', decoded = ? WHERE id = ?")
    .bind(JSON.stringify({ width: 1920, height: 1080, duration_ms: 65_400 }), inserted.fileIds[1])
    .run();
  const checks = [
    "manifest_hash",
    "timestamp_signature",
    "timestamp_signer",
    "timestamp_imprint",
    "timestamp_chain",
    "files_in_manifest",
    "signed_files_stored",
  ].map((name) => ({ name, result: "pass" }));
  await env.FILES.put(`proofs/${inserted.proofId}/verification.json`, JSON.stringify({ status: "valid", test_mode: true, checks }));
  return inserted;
}

/** A text as the page escapes it. */
const escaped = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");

async function page(path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { headers });
  return { response, html: await response.text() };
}

describe("the verification page /p/{id}", () => {
  it("has every text in the ten page languages (the same keys in each table)", () => {
    const english = Object.keys(PAGE_MESSAGES.en).sort();
    for (const lang of PAGE_LANGUAGES) {
      expect(Object.keys(PAGE_MESSAGES[lang]).sort(), lang).toEqual(english);
      for (const key of english) expect(PAGE_MESSAGES[lang][key]!.trim(), `${lang}.${key}`).not.toBe("");
    }
  });

  it("starts with the verdict, then who asked, the reference, the certified time in the reader's format and UTC, and our test authority translated", async () => {
    const org = await createOrganization();
    const { proofId } = await sealedProof(org.id);
    const organization = await env.DB.prepare("SELECT name FROM organizations WHERE id = ?").bind(org.id).first<{ name: string }>();
    const { html } = await page(`/p/${proofId}?lang=fr`);
    const verdict = html.indexOf('data-testid="verdict"');
    expect(verdict).toBeGreaterThan(0);
    expect(verdict).toBeLessThan(html.indexOf('data-testid="organization"'));
    expect(html).toContain(`data-testid="organization">${organization!.name}<`);
    expect(html).toMatch(/data-testid="reference">[^<]+</);
    // gen_time 2026-11-22T10:00:00Z from the stand-in sealer, in French, in UTC and saying so; the browser adds its own zone.
    expect(html).toMatch(/data-testid="certified-time"><time datetime="2026-11-22T10:00:00Z" data-local>22 novembre 2026 (à )?10:00:00 UTC<\/time>/);
    expect(html).toContain('src="/verify/local-time.js"');
    // One parenthesis at most: the test authority's name carries its own ("(sans valeur légale)"), qualification follows a comma.
    expect(html).toContain(`data-testid="authority">${escaped(`${PAGE_MESSAGES.fr.testAuthority}, ${PAGE_MESSAGES.fr.notQualified}`)}</dd>`);
    expect(html).not.toContain("Test TSA");
    expect((await page(`/p/${proofId}?lang=de`)).html).toMatch(/22\. November 2026 (um )?10:00:00 UTC/);
  });

  it("says every check as a sentence with its status, keeps codes and hashes in the technical details, and never loads a full file eagerly", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedProof(org.id);
    // Genuine artifacts of another proof (the core's checks run; this proof's files are not the manifest's).
    const keys = proofArtifactKeys(proofId, null);
    await env.FILES.put(keys.manifest, V2_MANIFEST);
    await env.FILES.put(
      packagedArtifactKey(proofId, null, "manifest.p7s"),
      Uint8Array.from(atob(V2_P7S_BASE64), (c) => c.charCodeAt(0)),
    );
    await env.FILES.put(
      keys.timestampResponse,
      Uint8Array.from(atob(V2_TSR_BASE64), (c) => c.charCodeAt(0)),
    );
    await env.FILES.put(keys.timestampChain, V2_CHAIN_PEM);
    await env.FILES.put(keys.c2paTrustAnchor, V2_SERVICE_ROOT_PEM);
    for (const lang of PAGE_LANGUAGES) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      const checks = html.slice(html.indexOf('data-testid="checks"'), html.indexOf("</ul>", html.indexOf('data-testid="checks"')));
      const codes = [...checks.matchAll(/data-code="([a-z_]+)(?::[A-Za-z0-9_]+)?">([^<]+)<strong>([^<]+)</g)];
      expect(codes.length, lang).toBeGreaterThan(2);
      for (const [, code, sentence, status] of codes) {
        // A file's check names the file as the gallery does ("(Photo 1)") when it is one of the proof's.
        expect(
          sentence!
            .trim()
            .replaceAll("&#39;", "'")
            .replace(/ \([^)]*\)$/, ""),
          `${lang} ${code}`,
        ).toBe(PAGE_MESSAGES[lang][`check_${code}`]);
        expect([PAGE_MESSAGES[lang].passed, PAGE_MESSAGES[lang].failedCheck, PAGE_MESSAGES[lang].notChecked]).toContain(status);
      }
      const technical = html.slice(html.indexOf('<details class="technical"'), html.indexOf("</details>", html.indexOf('<details class="technical"')));
      // Only the technical details and the "check it yourself" command carry identifiers.
      const visible = html.replace(technical, "").replace(/<pre[\s\S]*?<\/pre>/, "");
      const text = visible.replace(/ (data-[a-z-]+|id|href)="[^"]*"/g, "");
      for (const identifier of ["b".repeat(64), "a".repeat(64), fileIds[0]!]) {
        expect(technical, lang).toContain(identifier);
        expect(text).not.toContain(identifier);
      }
      expect(text).not.toMatch(/manifest_hash|timestamp_chain/);
      expect(technical).toContain('data-copy="manifest-sha256"');
      expect(html).not.toContain("<img");
      // Each tile says what the file is and how heavy, with what the sealer decoded (pixels, a video's duration).
      // (Its preview comes first in the tile, tested below; the format by its name, not its media type.)
      expect(html).toMatch(
        new RegExp(
          `data-file="${fileIds[0]}">(?:(?!</li>).)*<p class="tile-head"><strong class="tile-name">${PAGE_MESSAGES[lang].kind_photo} 1</strong> <span class="tile-meta" dir="ltr">JPEG · 4000\u00a0×\u00a03000 · 0[.,]1\u00a0kB</span>`,
        ),
      );
      expect(html).toMatch(
        new RegExp(
          `data-file="${fileIds[1]}">(?:(?!</li>).)*<p class="tile-head"><strong class="tile-name">${PAGE_MESSAGES[lang].kind_video} 2</strong> <span class="tile-meta" dir="ltr">MP4 · 1:05 · `,
        ),
      );
      expect(html).toContain(`href="${env.API_BASE_URL.replace(/\/$/, "")}/v1/public/proofs/${proofId}/files/${fileIds[0]}"`);
    }
  });

  it("numbers each file alike in its tile and in the technical details, in the gallery's order, so that a reader knows whose hashes are whose", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedProof(org.id);
    // The gallery goes step by step ("front" before "photos"): here the proof's second file comes first.
    await env.DB.prepare("UPDATE files SET step_id = CASE id WHEN ? THEN 'photos' ELSE 'front' END WHERE proof_id = ?").bind(fileIds[0], proofId).run();
    // The snapshot labels the step in en, fr and de; the other languages fall back to its default, English.
    const front: Record<string, string> = { fr: "Avant du véhicule", de: "Fahrzeugfront" };
    for (const lang of PAGE_LANGUAGES) {
      const m = PAGE_MESSAGES[lang];
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      expect(html, lang).toMatch(
        new RegExp(
          `data-file="${fileIds[1]}">(?:(?!</li>).)*<p class="tile-head"><strong class="tile-name">${m.kind_video} 1</strong> <span class="tile-meta" dir="ltr">MP4 · `,
        ),
      );
      expect(html, lang).toMatch(
        new RegExp(
          `data-file="${fileIds[0]}">(?:(?!</li>).)*<p class="tile-head"><strong class="tile-name">${m.kind_photo} 2</strong> <span class="tile-meta" dir="ltr">JPEG · `,
        ),
      );
      const technical = html.slice(html.indexOf('<details class="technical"'));
      expect(technical).toContain(
        `<h4>${escaped(`${m.kind_video} 1 · ${front[lang] ?? "Front of the car"}`)}</h4><dl><dt id="file-0-label">${escaped(m.fileId!)}</dt><dd><code id="file-0" dir="ltr">${fileIds[1]}</code>`,
      );
      expect(technical).toContain(
        `<h4>${escaped(`${m.kind_photo} 2 · Interior`)}</h4><dl><dt id="file-1-label">${escaped(m.fileId!)}</dt><dd><code id="file-1" dir="ltr">${fileIds[0]}</code>`,
      );
    }
  });

  it("shows each photo's thumbnail made at sealing (never the full file), and for a video or a HEIC photo a tile naming its format", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedProof(org.id);
    // Where sealing puts it (a proof sealed without a run: at its root): a key elsewhere is never shown (forger session 7, G6).
    const thumbnail = { key: `proofs/${proofId}/thumbnails/${fileIds[0]}.webp`, content_type: "image/webp", width: 480, height: 360, size: 20_000 };
    await env.DB.prepare("UPDATE files SET thumbnail = ? WHERE id = ?").bind(JSON.stringify(thumbnail), fileIds[0]).run();
    const files = `${env.API_BASE_URL.replace(/\/$/, "")}/v1/public/proofs/${proofId}/files`;
    for (const lang of PAGE_LANGUAGES) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      const images = [...html.matchAll(/<img [^>]*>/g)].map(([tag]) => tag);
      expect(images, lang).toHaveLength(1);
      expect(images[0]).toContain(`src="${files}/${fileIds[0]}/thumbnail"`);
      // Loaded with the page (a short proof: printing needs every one; a long proof's beyond the 12th load lazily).
      expect(images[0]).toContain('loading="eager"');
      // A tap on the picture opens the full file; the text link is the one assistive technology meets.
      expect(html).toContain(`<a class="preview" href="${files}/${fileIds[0]}" tabindex="-1" aria-hidden="true">`);
      // The video: no picture, its decoded duration and its format.
      expect(html).toContain(
        `data-testid="no-preview-${fileIds[1]}"><span class="format">1:05</span><span>${escaped(PAGE_MESSAGES[lang].kind_video!)} · MP4</span>`,
      );
    }
    await env.DB.prepare("UPDATE files SET kind = 'photo', content_type = 'image/heic', decoded = NULL WHERE id = ?").bind(fileIds[1]).run();
    for (const lang of PAGE_LANGUAGES) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      expect(html).toContain(`data-testid="no-preview-${fileIds[1]}"><span class="format">HEIC</span><span>${escaped(PAGE_MESSAGES[lang].noPreview!)}</span>`);
    }
    // A recording whose duration the sealer could not decode: its format, never a made-up duration.
    await env.DB.prepare("UPDATE files SET kind = 'video', content_type = 'video/webm', decoded = NULL WHERE id = ?").bind(fileIds[1]).run();
    const { html } = await page(`/p/${proofId}?lang=de`);
    expect(html).toContain(`data-testid="no-preview-${fileIds[1]}"><span class="format">WEBM</span><span>Video · WEBM</span>`);
  });

  it("says each integrity signal in the reader's language, beside the file it concerns, with the sealer's figures marked as English", async () => {
    for (const code of SIGNAL_CODES) expect(PAGE_MESSAGES.en[`signal_${code}`], code).toBeDefined();
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedProof(org.id);
    const signals = [
      { code: "dimensions_mismatch", detail: "Reported 4000×3000, decoded 320×240." },
      { code: "prior_content_credentials", detail: "The file came with C2PA Content Credentials of its own." },
    ];
    await env.DB.prepare("UPDATE files SET signals = ? WHERE id = ?").bind(JSON.stringify(signals), fileIds[0]).run();
    for (const lang of PAGE_LANGUAGES) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      const tile = html.slice(html.indexOf(`data-file="${fileIds[0]}"`), html.indexOf("</ul>", html.indexOf(`data-testid="signals-${fileIds[0]}"`)));
      expect(tile, lang).toContain(
        `<li data-code="dimensions_mismatch">${escaped(PAGE_MESSAGES[lang].signal_dimensions_mismatch!)} <span class="signal-detail" lang="en" dir="ltr">(Reported 4000×3000, decoded 320×240.)</span></li>`,
      );
      expect(tile, lang).toContain(`<li data-code="prior_content_credentials">${escaped(PAGE_MESSAGES[lang].signal_prior_content_credentials!)}</li>`);
    }
  });

  it("loads a long proof's first 12 thumbnails with the page and the others as the reader scrolls", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 14);
    await env.DB.prepare("UPDATE proofs SET status = 'sealed', manifest_sha256 = ? WHERE id = ?").bind("a".repeat(64), proofId).run();
    await env.DB.prepare(
      "UPDATE files SET signed_sha256 = ?, signed_size = 100, thumbnail = json_object('key', 'proofs/' || proof_id || '/thumbnails/' || id || '.webp', 'content_type', 'image/webp', 'width', 480, 'height', 360, 'size', 20000) WHERE proof_id = ?",
    )
      .bind("b".repeat(64), proofId)
      .run();
    const { html } = await page(`/p/${proofId}?lang=en`);
    expect([...html.matchAll(/<img [^>]*loading="([a-z]+)"/g)].map(([, loading]) => loading)).toEqual([...Array(12).fill("eager"), "lazy", "lazy"]);
  });

  it("gives both roots' SHA-256 fingerprints in the technical details with copy buttons, from the same source as the public JSON and VERIFY.md", async () => {
    const org = await createOrganization();
    const { proofId } = await sealedProof(org.id);
    const keys = proofArtifactKeys(proofId, null);
    await env.FILES.put(keys.timestampChain, FIXTURE_CHAIN_PEM);
    await env.FILES.put(keys.c2paTrustAnchor, OTHER_ROOT_PEM);
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    const { timestamp_authority_root_sha256: tsa, c2pa_root_sha256: c2pa } = body.trust_anchors;
    // Sealed before manifest.p7s existed: "check it yourself" checks the timestamp only, with the published root.
    expect(body.seal).toBeNull();
    const command = (await page(`/p/${proofId}?lang=en`)).html.match(/<code id="command">([^<]*)<\/code>/)![1]!;
    expect(command).not.toContain("openssl cms");
    expect(command).toContain(`&quot;${tsa}&quot;`);
    expect(command).toContain("-CAfile tsa-root.pem -untrusted chain.pem");
    expect(tsa).toMatch(/^[0-9a-f]{64}$/);
    expect(c2pa).toMatch(/^[0-9a-f]{64}$/);
    expect(c2pa).not.toBe(tsa);
    for (const lang of PAGE_LANGUAGES) {
      const m = PAGE_MESSAGES[lang];
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      const technical = html.slice(html.indexOf('<details class="technical"'), html.indexOf("</details>", html.indexOf('<details class="technical"')));
      for (const [id, label, sha256] of [
        ["root-tsa", m.rootTsa!, tsa],
        ["root-c2pa", m.rootC2pa!, c2pa],
      ] as const) {
        // As `openssl x509 -fingerprint -sha256` prints it, which VERIFY.md asks the reader to compare (wrapping only after a colon).
        const shown = opensslFingerprint(sha256).replaceAll(":", ":<wbr>");
        expect(technical, `${lang} ${id}`).toContain(
          `<dt id="${id}-label">${escaped(label)}</dt><dd><code id="${id}" dir="ltr">${shown}</code> <button type="button" class="copy" data-copy="${id}"`,
        );
      }
      expect(technical).toContain(
        `<h3>${escaped(m.rootFingerprints!)}</h3><p>${escaped(m.rootsHelp!)}</p><p><a class="published-roots" href="${env.API_BASE_URL.replace(/\/$/, "")}/v1/public/trust-anchors">`,
      );
    }
  });

  it("labels each step in the reader's language, in the template's order, with strict headers", async () => {
    const org = await createOrganization();
    const { proofId } = await proofWithSnapshot(org.id);
    const french = await page(`/p/${proofId}`, { "Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5" });
    expect(french.response.status).toBe(200);
    expect(french.response.headers.get("Content-Language")).toBe("fr");
    expect(french.response.headers.get("X-Robots-Tag")).toBe("noindex");
    expect(french.response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(french.html).toContain('<html lang="fr" dir="ltr">');
    expect(french.html.indexOf("Avant du véhicule")).toBeGreaterThan(0);
    expect(french.html.indexOf("Avant du véhicule")).toBeLessThan(french.html.indexOf("Interior"));
    expect((await page(`/p/${proofId}?lang=de`)).html).toContain("Fahrzeugfront");
    expect((await page(`/p/${proofId}`, { "Accept-Language": "es" })).html).toContain("Front of the car");
  });

  it("shows a before/after pair aligned step by step, each column headed by its side linking to its own proof", async () => {
    const org = await createOrganization();
    const before = await proofWithSnapshot(org.id);
    const after = await proofWithSnapshot(org.id);
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after.proofId, before.proofId).run();
    await env.DB.prepare("UPDATE proofs SET compare_to = ? WHERE id = ?").bind(before.proofId, after.proofId).run();
    for (const viewed of [before.proofId, after.proofId]) {
      const { html } = await page(`/p/${viewed}?lang=en`);
      // The columns' heads: before first, each linking to its own proof.
      const beforeHead = html.indexOf('data-testid="side-before"');
      const afterHead = html.indexOf('data-testid="side-after"');
      expect(beforeHead).toBeGreaterThan(0);
      expect(afterHead).toBeGreaterThan(beforeHead);
      expect(html.slice(beforeHead, afterHead)).toContain(`/p/${before.proofId}?lang=en`);
      expect(html.slice(afterHead)).toMatch(new RegExp(`^[^>]*><a href="/p/${after.proofId}\\?lang=en">`));
      // One row per position: the before's first file, then the after's, each numbered in its own proof.
      const front = html.slice(html.indexOf('data-testid="step-front"'), html.indexOf('data-testid="step-photos"'));
      const cells = [...front.matchAll(/data-side="(before|after)"><li class="tile" data-file="([^"]+)">/g)].map(([, side, id]) => `${side} ${id}`);
      expect(cells).toEqual([`before ${before.fileIds[0]}`, `after ${after.fileIds[0]}`]);
      expect(front).not.toContain("Photo ·");
      expect(front).toContain('<span class="visually-hidden">Before · </span><strong class="tile-name">Photo 1</strong>');
      expect(front).toContain('<span class="visually-hidden">After · </span><strong class="tile-name">Photo 1</strong>');
      const partner = viewed === before.proofId ? after.proofId : before.proofId;
      expect(html).toMatch(new RegExp(`data-testid="compared-with"><a href="/p/${partner}\\?lang=en">`));
      // Each side is named by its role (and day once certified), its identifier staying a technical detail.
      expect(front.replace(/ (href|data-[a-z-]+)="[^"]*"/g, ""), "visible text").not.toContain("prf_");
    }
  });

  it("links the proof's PDF report and its pair's only once made (their routes answer report_not_ready until then)", async () => {
    const org = await createOrganization();
    const before = await sealedProof(org.id);
    const after = await sealedProof(org.id);
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after.proofId, before.proofId).run();
    await env.DB.prepare("UPDATE proofs SET compare_to = ? WHERE id = ?").bind(before.proofId, after.proofId).run();
    const api = env.API_BASE_URL.replace(/\/$/, "");
    const links = async (id: string) =>
      [...(await page(`/p/${id}?lang=en`)).html.matchAll(/<a class="button" href="([^"]+)" data-testid="((?:pair-)?report)">/g)].map(
        ([, href, testid]) => `${testid} ${href}`,
      );
    expect(await links(before.proofId)).toEqual([]);
    const made = (proofId: string, kind: string) =>
      env.DB.prepare(
        "INSERT INTO proof_reports (proof_id, kind, object_key, sha256, size, language, made_at) VALUES (?, ?, 'k', ?, 1, 'en', '2026-11-22T10:00:05Z')",
      )
        .bind(proofId, kind, "c".repeat(64))
        .run();
    await made(before.proofId, "proof");
    expect(await links(before.proofId)).toEqual([`report ${api}/v1/public/proofs/${before.proofId}/report.pdf`]);
    // The pair's report is kept with the after, and linked from either side.
    await made(after.proofId, "pair");
    expect(await links(before.proofId)).toEqual([
      `report ${api}/v1/public/proofs/${before.proofId}/report.pdf`,
      `pair-report ${api}/v1/public/proofs/${before.proofId}/pair-report.pdf`,
    ]);
    expect(await links(after.proofId)).toEqual([`pair-report ${api}/v1/public/proofs/${after.proofId}/pair-report.pdf`]);
  });

  it("explains a proof still being sealed, and one that failed, without offering a package", async () => {
    const org = await createOrganization();
    const { proofId } = await proofWithSnapshot(org.id);
    const pending = await page(`/p/${proofId}?lang=en`);
    expect(pending.response.status).toBe(200);
    expect(pending.response.headers.get("Cache-Control")).toBe("no-store");
    expect(pending.html).toContain("This proof is being sealed.");
    expect(pending.html).not.toContain('data-testid="download"');
    await env.DB.prepare("UPDATE proofs SET status = 'failed', failure_code = 'file_corrupt', failure_message = 'x' WHERE id = ?").bind(proofId).run();
    const failed = await page(`/p/${proofId}?lang=fr`);
    expect(failed.response.status).toBe(200);
    expect(failed.html).toContain('class="verdict failed"');
    expect(failed.html).not.toContain('data-testid="download"');
    // The heading and the tab's title never say "sealed" above a verdict that says it is not: the verdict alone judges.
    for (const lang of PAGE_LANGUAGES) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`);
      const headings = [/<h1>([^<]*)<\/h1>/.exec(html)![1], /<title>([^<]*)<\/title>/.exec(html)![1]];
      for (const heading of headings) expect(heading, lang).not.toMatch(/seal|scell|sell|versiegel/i);
    }
  });

  it("answers an unknown proof with 404: a translated page for a browser, proof_not_found for a program", async () => {
    const { status, body } = await callJson("/p/prf_unknown");
    expect(status).toBe(404);
    expect(body.code).toBe("proof_not_found");
    const browser = await page("/p/prf_unknown", { Accept: "text/html,application/xhtml+xml", "Accept-Language": "de" });
    expect(browser.response.status).toBe(404);
    expect(browser.response.headers.get("Content-Type")).toContain("text/html");
    expect(browser.html).toContain("Nachweis nicht gefunden");
    expect(browser.html).toContain('data-code="proof_not_found"');
  });
});
