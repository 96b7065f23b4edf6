import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { database } from "../../src/db/client.ts";
import { buildReportJob, reportSubject } from "../../src/reports/report-job.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { PAGE_LANGUAGES, PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import type { FrameFingerprint, PerceptualFingerprint, SealJob } from "../../shared/sealer-protocol.ts";
import { hammingDistance, phashBands } from "../../shared/perceptual-fingerprint.ts";
import { REPORT_LANGUAGES } from "../../shared/report-protocol.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { fileOfProof } from "./support/proof-files.ts";
import { indexedPrints } from "./support/similarity-index.ts";

/** A video's frames at 10, 50 and 90 % (docs/adr/0059); the copy's middle frame has one bit flipped in each pHash band. */
const FRAMES: FrameFingerprint[] = [
  { at_ms: 300, phash: "5a3c0ff0c33ca569", dhash: "f0f0c3c30f0fa5a5" },
  { at_ms: 1500, phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" },
  { at_ms: 2700, phash: "3c3ca5a55a5ac3c3", dhash: "a5a50f0ff0f03c3c" },
];
const COPY_MIDDLE: FrameFingerprint = { at_ms: 1500, phash: "a5c2f00e3cc25a97", dhash: "0f0f3c3cf0f05a5b" };
/** A re-encoded copy: each frame a few bits from the original's at the same time, the middle one the closest (4). */
const COPY: FrameFingerprint[] = [{ ...FRAMES[0]!, phash: "4a3c0ff0c33ca466" }, COPY_MIDDLE, { ...FRAMES[2]!, phash: "2c3ca5a55a5ac2cc" }];
const OTHER: FrameFingerprint[] = [
  { at_ms: 300, phash: "1111222233334444", dhash: "1111222233334444" },
  { at_ms: 1500, phash: "8888444422221111", dhash: "8888444422221111" },
  { at_ms: 2700, phash: "f0f00f0ff0f00f0f", dhash: "0f0ff0f00f0ff0f0" },
];
/**
 * A copy trimmed at its start (docs/adr/0063): its frames fall at other times of the original, its 10 % and middle
 * frames far from all of the original's, its 90 % frame 4 bits from the original's (one bit flipped in each band).
 */
const TRIMMED: FrameFingerprint[] = [
  { at_ms: 240, phash: "6996966969969669", dhash: "6996966969969669" },
  { at_ms: 1200, phash: "0ff00ff0f00ff00f", dhash: "0ff00ff0f00ff00f" },
  { at_ms: 2160, phash: "3c3da5a45a5bc3c2", dhash: "a5a50f0ff0f03c3d" },
];
/** A photo as a still of the copy's middle frame: 4 bits from the original video's middle frame. */
const STILL: PerceptualFingerprint = { phash: COPY_MIDDLE.phash, dhash: COPY_MIDDLE.dhash };

/** What one file of a proof is, as the sealer fingerprinted it: a video's frames ([]: ffmpeg decoded none), or a photo's print. */
type Sealed = { video: FrameFingerprint[] } | { photo: PerceptualFingerprint };

/** Seals a pending proof of `items`, in that order, each a video or a photo as the sealer fingerprinted it. */
async function sealedWith(organizationId: string, items: Sealed[], sameBytesAs?: string) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", items.length);
  for (const [index, item] of items.entries()) {
    // Captured one millisecond apart, in `items`' order: the later of two alike files carries the likeness.
    const capturedAt = new Date(Date.UTC(2026, 10, 27, 9, 0, 0, index)).toISOString();
    await env.DB.prepare("UPDATE files SET kind = ?, content_type = ?, created_at = ?, captured_at = ? WHERE id = ?")
      .bind(...("video" in item ? ["video", "video/mp4"] : ["photo", "image/jpeg"]), capturedAt, capturedAt, fileIds[index])
      .run();
  }
  if (sameBytesAs) await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(sameBytesAs, fileIds[0]).run();
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => {
      const item = items[fileIds.indexOf(file.id)]!;
      return "video" in item
        ? { ...file, sniffed_type: "video/mp4", fingerprint: null, crop_fingerprints: [], frame_fingerprints: item.video }
        : { ...file, fingerprint: item.photo, crop_fingerprints: [], frame_fingerprints: [] };
    });
    return answer;
  });
  expect(await sealProof(deps, proofId)).toBe("sealed");
  return { proofId, fileIds, fileId: fileIds[0]! };
}

const sealedVideo = (organizationId: string, frames: FrameFingerprint[]) => sealedWith(organizationId, [{ video: frames }]);

/** Each file's signals in the owner's view, in the order of `fileIds` when given. */
async function signalsOf(proofId: string, key: string, fileIds?: string[]): Promise<unknown[][]> {
  const listed: { id: string; signals: unknown[] }[] = (await callJson(`/v1/proofs/${proofId}`, { key })).body.files;
  return (fileIds ?? listed.map((file) => file.id)).map((id) => listed.find((file) => file.id === id)!.signals);
}

const sealedAtOf = async (proofId: string) =>
  (await env.DB.prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(proofId).first<{ sealed_at: string }>())!.sealed_at;

const escaped = (text: string) => text.replaceAll("'", "&#39;").replaceAll('"', "&quot;");
const pattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("videos that look like earlier ones (issue 27, ADR 0059, 0063)", () => {
  it("stores a video's middle frame as its variant 0 and the two others beside it, banded as photos are", async () => {
    const org = await createOrganization();
    const { fileId } = await sealedVideo(org.id, FRAMES);
    const rows = await indexedPrints(org.id, fileId);
    expect(rows.map(({ variant, phash, dhash, bands }) => ({ variant, phash, dhash, bands }))).toEqual(
      [FRAMES[1]!, FRAMES[0]!, FRAMES[2]!].map(({ phash, dhash }, variant) => ({ variant, phash, dhash, bands: phashBands(phash) })),
    );
  });

  it("flags a copy as similar_to_earlier_video: named to its owner and in the webhook, not in the public JSON, page or report", async () => {
    const org = await createOrganization();
    const first = await sealedVideo(org.id, FRAMES);
    const sealedAt = await sealedAtOf(first.proofId);
    const copy = await sealedVideo(org.id, COPY);
    expect(await signalsOf(copy.proofId, org.testKey)).toEqual([
      [
        {
          code: "similar_to_earlier_video",
          detail: `Looks like a video sealed on ${sealedAt} in proof ${first.proofId} (step photos): 4 of 64 bits apart.`,
          proof_id: first.proofId,
          step_id: "photos",
          distance: 4,
          sealed_at: sealedAt,
        },
      ],
    ]);

    const event = await env.DB.prepare("SELECT data FROM events WHERE type = 'proof.sealed' AND json_extract(data, '$.proof_id') = ?")
      .bind(copy.proofId)
      .first<{ data: string }>();
    expect(JSON.parse(event!.data).signals).toEqual([
      expect.objectContaining({ file_id: copy.fileId, code: "similar_to_earlier_video", proof_id: first.proofId, distance: 4, sealed_at: sealedAt }),
    ]);

    const published = await callJson(`/v1/public/proofs/${copy.proofId}`);
    expect(published.body.files[0].signals).toEqual([
      {
        code: "similar_to_earlier_video",
        detail: "Looks like a video sealed earlier by the same organization, in another proof: 4 of 64 bits apart.",
        distance: 4,
      },
    ]);
    expect(JSON.stringify(published.body)).not.toContain(first.proofId);

    for (const lang of PAGE_LANGUAGES) {
      const m = PAGE_MESSAGES[lang];
      const page = await (await call(`/p/${copy.proofId}?lang=${lang}`, { headers: { Accept: "text/html" } })).text();
      const sentence = escaped(m.signal_similar_to_earlier_video!);
      expect(sentence, lang).not.toBe(escaped(m.signal_similar_to_earlier_photo!));
      // In the warning summary near the verdict, with the video it concerns by name, and on the video itself.
      const summary = page.match(/<section class="signal-summary"[^>]* data-testid="signal-summary"[\s\S]*?<\/section>/)?.[0] ?? "";
      expect(summary, lang).toMatch(
        new RegExp(
          `<li class="warn" data-code="similar_to_earlier_video"><svg[^>]*>.*?</svg><div><p>${pattern(sentence)}</p><p class="where"><span>${m.kind_video} 1</span></p>`,
        ),
      );
      expect(page, lang).toContain(`<li data-code="similar_to_earlier_video">${sentence}`);
      expect(page, lang).not.toContain(first.proofId);
      expect(page, lang).not.toContain('data-code="similar_to_earlier_photo"');
    }

    const db = database(env.DB);
    for (const language of REPORT_LANGUAGES) {
      await env.DB.prepare("UPDATE capture_sessions SET locale = ? WHERE proof_id = ?").bind(language, copy.proofId).run();
      const subject = await reportSubject(db, env, copy.proofId, "proof");
      const job = await buildReportJob(env, db, subject!, async () => ({ url: "https://pictures.example/signed" }), new Date(Date.now() + 60_000));
      expect(job.proofs[0]!.files[0]!.signals, language).toEqual([
        {
          code: "similar_to_earlier_video",
          sentence: PAGE_MESSAGES[language].signal_similar_to_earlier_video,
          detail: "Looks like a video sealed earlier by the same organization, in another proof: 4 of 64 bits apart.",
        },
      ]);
      expect(JSON.stringify(job), language).not.toContain(first.proofId);
    }
    // The first proof, sealed before, says nothing of the later one.
    expect(await signalsOf(first.proofId, org.testKey)).toEqual([[]]);
  });

  it("finds a copy trimmed at one end by whichever of its frames still falls near one of the earlier video's, in another proof or the same", async () => {
    const org = await createOrganization();
    const first = await sealedVideo(org.id, FRAMES);
    for (const [index, frame] of TRIMMED.slice(0, 2).entries())
      for (const stored of FRAMES) expect(hammingDistance(frame.phash, stored.phash), `frame ${index}`).toBeGreaterThan(10);
    const trimmed = await sealedVideo(org.id, TRIMMED);
    expect(await signalsOf(trimmed.proofId, org.testKey)).toEqual([
      [expect.objectContaining({ code: "similar_to_earlier_video", proof_id: first.proofId, distance: 4 })],
    ]);
    const another = await createOrganization();
    const both = await sealedWith(another.id, [{ video: FRAMES }, { video: TRIMMED }]);
    expect(await signalsOf(both.proofId, another.testKey, both.fileIds)).toEqual([
      [],
      [expect.objectContaining({ code: "similar_to_video_within_proof", other_file_id: both.fileIds[0], distance: 4 })],
    ]);
  });

  it("names each likeness by what the file looks like: a still of an earlier video, a video of an earlier photo", async () => {
    const org = await createOrganization();
    const video = await sealedVideo(org.id, FRAMES);
    const still = await sealedWith(org.id, [{ photo: STILL }]);
    expect((await signalsOf(still.proofId, org.testKey))[0]).toEqual([
      expect.objectContaining({ code: "similar_to_earlier_video", detail: expect.stringMatching(/^Looks like a video sealed on /), proof_id: video.proofId }),
    ]);
    const elsewhere = await createOrganization();
    const photo = await sealedWith(elsewhere.id, [{ photo: STILL }]);
    const filmed = await sealedVideo(elsewhere.id, FRAMES);
    expect((await signalsOf(filmed.proofId, elsewhere.testKey))[0]).toEqual([
      expect.objectContaining({ code: "similar_to_earlier_photo", detail: expect.stringMatching(/^Looks like a photo sealed on /), proof_id: photo.proofId }),
    ]);
  });

  it("flags two alike videos of one proof as similar_to_video_within_proof, a video like a photo of it as similar_within_proof", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedWith(org.id, [{ video: FRAMES }, { video: OTHER }, { video: COPY }]);
    expect(await signalsOf(proofId, org.testKey, fileIds)).toEqual([
      [],
      [],
      [
        {
          code: "similar_to_video_within_proof",
          detail: `Looks like video ${fileIds[0]} of this proof (step photos): 4 of 64 bits apart.`,
          other_file_id: fileIds[0],
          distance: 4,
        },
      ],
    ]);
    const published = await callJson(`/v1/public/proofs/${proofId}`);
    expect(published.body.files.flatMap((file: { signals: { code: string }[] }) => file.signals.map((signal) => signal.code))).toEqual([
      "similar_to_video_within_proof",
    ]);
    const page = await (await call(`/p/${proofId}?lang=fr`, { headers: { Accept: "text/html" } })).text();
    expect(page).toContain(`<li data-code="similar_to_video_within_proof">${escaped(PAGE_MESSAGES.fr.signal_similar_to_video_within_proof!)}`);

    const another = await createOrganization();
    const mixed = await sealedWith(another.id, [{ photo: STILL }, { video: FRAMES }]);
    expect(await signalsOf(mixed.proofId, another.testKey, mixed.fileIds)).toEqual([
      [],
      [
        expect.objectContaining({
          code: "similar_within_proof",
          detail: `Looks like photo ${mixed.fileIds[0]} of this proof (step photos): 4 of 64 bits apart.`,
        }),
      ],
    ]);
  });

  it("says only sealed_before when the same video bytes were sealed before; another video and a video without frames raise nothing", async () => {
    const org = await createOrganization();
    const first = await sealedVideo(org.id, FRAMES);
    const { sha256 } = await fileOfProof(first.proofId, first.fileId);
    const again = await sealedWith(org.id, [{ video: FRAMES }], sha256);
    expect(await signalsOf(again.proofId, org.testKey)).toEqual([[expect.objectContaining({ code: "sealed_before", proof_id: first.proofId })]]);
    const other = await sealedVideo(org.id, OTHER);
    expect(await signalsOf(other.proofId, org.testKey)).toEqual([[]]);
    const undecoded = await sealedVideo(org.id, []);
    expect(await signalsOf(undecoded.proofId, org.testKey)).toEqual([[]]);
    expect(await indexedPrints(org.id, undecoded.fileId)).toEqual([]);
  });
});
