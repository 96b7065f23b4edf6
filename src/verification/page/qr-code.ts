import { encode } from "uqr";
import { html, type Html } from "../../lib/html.ts";

/**
 * A QR code (ISO/IEC 18004) of a short text, as an SVG drawn on the server, so the printed page carries its own
 * address without any network or script at view time. Error correction level M, the smallest version that fits
 * (uqr, a port of Project Nayuki's reference generator; docs/adr/0039).
 */
export function qrSvg(text: string, label: string): Html {
  const modules = encode(text, { ecc: "M", border: 0 }).data;
  // The four-module quiet zone the scanners need, white around the code.
  const size = modules.length + 8;
  const path = modules.flatMap((row, y) => row.map((dark, x) => (dark ? `M${x + 4} ${y + 4}h1v1h-1z` : ""))).join("");
  return html`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" role="img" aria-label="${label}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}
