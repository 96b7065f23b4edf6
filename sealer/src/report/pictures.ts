import sharp from "sharp";
import type { ReportFile } from "../../../shared/report-protocol.ts";
import { storageGet } from "../storage-request.ts";
import { TransientJobError } from "../transfer.ts";

/** A photo as the report draws it: a JPEG of the signed copy's pixels, upright, without metadata. */
export interface ReportPicture {
  jpeg: Buffer;
  width: number;
  height: number;
}

/**
 * The long side of a photo in the report: 1,280 px printed 17 cm wide is about 190 dpi, sharp on paper, and at
 * JPEG quality 78 a camera photo takes some 150-250 kB, so a 10-photo report stays well under 3 MB (docs/adr/0044).
 */
const LONG_SIDE = 1280;
const QUALITY = 78;

/** Photos fetched and resized at once: sharp decodes on libuv's threads, and each holds a decoded frame. */
const CONCURRENCY = 4;

/** The pictures of the files that have one, by file id; a file sharp cannot read has none (its tile says so). */
export async function reportPictures(files: ReportFile[], signal: AbortSignal): Promise<Map<string, ReportPicture>> {
  const pictures = new Map<string, ReportPicture>();
  const queue = files.filter((file) => file.picture !== null);
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const picture = file.picture!;
      const { status, body } = await storageGet(picture.url, picture.headers, signal);
      // The signed copy is published with the proof: missing now, it is storage that failed, and the report waits.
      if (status !== 200) throw new TransientJobError(`signed copy of ${file.id}: storage answered ${status}`);
      const drawn = await resized(body).catch(() => null);
      if (drawn !== null) pictures.set(file.id, drawn);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return pictures;
}

async function resized(bytes: Uint8Array): Promise<ReportPicture> {
  const { data, info } = await sharp(bytes, { failOn: "error" })
    .rotate()
    // A PNG's transparent parts on white, as a page shows them (a JPEG has no alpha, and PDF/A-3 wants no soft mask).
    .flatten({ background: "#ffffff" })
    .resize({ width: LONG_SIDE, height: LONG_SIDE, fit: "inside", withoutEnlargement: true })
    .jpeg({ quality: QUALITY, mozjpeg: false })
    .toBuffer({ resolveWithObject: true });
  return { jpeg: data, width: info.width, height: info.height };
}
