// @ts-check
/**
 * Whether a still is worth sealing: a covered lens or a camera not yet warmed up gives a black frame, a lens cap
 * or a wall a blank one, a shaking hand a badly blurred one. Measured on a small grey copy of the frame; the
 * person is asked to retake and may keep the shot deliberately (the sealer records a blank frame as a signal
 * whatever the page did, ADR 0041).
 */

/** The copy measured: small enough to be instant on any phone, large enough to see edges. */
const SAMPLE_WIDTH = 160;
/** Mean brightness (0-255) below which, with almost nothing brighter, a frame is black. */
const BLACK_MEAN = 16;
const BLACK_BRIGHTEST = 48;
/** Spread of brightness below which a frame is one uniform colour. */
const BLANK_SPREAD = 5;
/** Variance of the Laplacian below which nothing in the frame has an edge: badly blurred. */
const BLURRED_EDGES = 4;

/**
 * @typedef {"black" | "blank" | "blurred"} FrameFault
 */

/**
 * @param {CanvasImageSource} source
 * @param {number} width
 * @param {number} height
 * @returns {FrameFault | null}
 */
export function frameFault(source, width, height) {
  if (width === 0 || height === 0) return "black";
  const w = SAMPLE_WIDTH;
  const h = Math.max(1, Math.round((SAMPLE_WIDTH * height) / width));
  const canvas = document.createElement("canvas");
  canvas.width = w;
  canvas.height = h;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  if (!context) return null;
  context.drawImage(source, 0, 0, w, h);
  const { data } = context.getImageData(0, 0, w, h);
  const grey = new Float32Array(w * h);
  let sum = 0;
  let brightest = 0;
  for (let i = 0; i < grey.length; i++) {
    const value = 0.299 * (data[4 * i] ?? 0) + 0.587 * (data[4 * i + 1] ?? 0) + 0.114 * (data[4 * i + 2] ?? 0);
    grey[i] = value;
    sum += value;
    if (value > brightest) brightest = value;
  }
  const mean = sum / grey.length;
  if (mean < BLACK_MEAN && brightest < BLACK_BRIGHTEST) return "black";
  let spread = 0;
  for (const value of grey) spread += (value - mean) ** 2;
  if (Math.sqrt(spread / grey.length) < BLANK_SPREAD) return "blank";
  let edges = 0;
  let edgesSquared = 0;
  let count = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const laplacian = (grey[i - 1] ?? 0) + (grey[i + 1] ?? 0) + (grey[i - w] ?? 0) + (grey[i + w] ?? 0) - 4 * (grey[i] ?? 0);
      edges += laplacian;
      edgesSquared += laplacian * laplacian;
      count++;
    }
  }
  const variance = count === 0 ? 0 : edgesSquared / count - (edges / count) ** 2;
  return variance < BLURRED_EDGES ? "blurred" : null;
}
