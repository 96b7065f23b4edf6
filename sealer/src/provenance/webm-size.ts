/**
 * A WebM (Matroska) video track's PixelWidth and PixelHeight: Segment → Tracks → TrackEntry → Video, read
 * with EBML's variable-length ids and sizes. MediaRecorder writes the Segment and its Clusters with an
 * unknown size (all value bits set), which means "up to the end of the parent".
 */
const SEGMENT = 0x18538067;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const VIDEO = 0xe0;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;

interface Element {
  id: number;
  start: number;
  end: number;
}

/** A variable-length integer at `offset`: its length from the leading zeros of the first byte. */
function vint(bytes: Uint8Array, offset: number, keepMarker: boolean): { value: number; length: number; allOnes: boolean } | null {
  const first = bytes[offset];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (offset + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let index = 1; index < length; index++) {
    value = value * 256 + bytes[offset + index]!;
    allOnes &&= bytes[offset + index] === 0xff;
  }
  return { value, length, allOnes };
}

function* children(bytes: Uint8Array, start: number, end: number): Generator<Element> {
  let offset = start;
  while (offset < end) {
    const id = vint(bytes, offset, true);
    const size = id && vint(bytes, offset + id.length, false);
    if (!id || !size) return;
    const dataStart = offset + id.length + size.length;
    const dataEnd = size.allOnes ? end : Math.min(end, dataStart + size.value);
    yield { id: id.value, start: dataStart, end: dataEnd };
    offset = dataEnd;
  }
}

const find = (bytes: Uint8Array, parent: Element | undefined, id: number) =>
  parent ? [...children(bytes, parent.start, parent.end)].find((element) => element.id === id) : undefined;

const unsigned = (bytes: Uint8Array, element: Element | undefined) =>
  element ? bytes.subarray(element.start, element.end).reduce((value, byte) => value * 256 + byte, 0) : null;

export function webmVideoSize(bytes: Uint8Array): { width: number | null; height: number | null } {
  const segment = [...children(bytes, 0, bytes.length)].find((element) => element.id === SEGMENT);
  // Tracks come before the Clusters; an unknown-size Cluster ends the walk, as it runs to the end.
  const tracks = find(bytes, segment, TRACKS);
  for (const entry of tracks ? children(bytes, tracks.start, tracks.end) : []) {
    if (entry.id !== TRACK_ENTRY) continue;
    const video = find(bytes, entry, VIDEO);
    const width = unsigned(bytes, find(bytes, video, PIXEL_WIDTH));
    const height = unsigned(bytes, find(bytes, video, PIXEL_HEIGHT));
    if (width && height) return { width, height };
  }
  return { width: null, height: null };
}
