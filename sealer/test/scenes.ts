import sharp from "sharp";

/**
 * Synthetic photographs for the fingerprint tests: a gradient sky, a few shapes in random colours and
 * positions, and sensor-like noise, from a seed (each seed its own scene). They stand in for real
 * photographs, of which the machine holds few (docs/adr/0041 says which were used).
 */
export async function scene(seed: number, width = 1200, height = 900): Promise<Uint8Array> {
  let state = seed * 2654435761 + 1;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const colour = () => `rgb(${Math.floor(random() * 255)},${Math.floor(random() * 255)},${Math.floor(random() * 255)})`;
  const shapes = Array.from({ length: 6 + Math.floor(random() * 8) }, () => {
    const [x, y, w, h] = [random() * width, random() * height, (0.1 + random() * 0.4) * width, (0.1 + random() * 0.4) * height];
    return random() < 0.5
      ? `<ellipse cx="${x}" cy="${y}" rx="${w / 2}" ry="${h / 2}" fill="${colour()}"/>`
      : `<rect x="${x - w / 2}" y="${y - h / 2}" width="${w}" height="${h}" fill="${colour()}" transform="rotate(${random() * 60 - 30} ${x} ${y})"/>`;
  }).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="${random()}" y2="1"><stop offset="0" stop-color="${colour()}"/><stop offset="1" stop-color="${colour()}"/></linearGradient></defs><rect width="${width}" height="${height}" fill="url(#g)"/>${shapes}</svg>`;
  const noise = { create: { width, height, channels: 3 as const, background: "#808080", noise: { type: "gaussian" as const, mean: 128, sigma: 12 } } };
  return new Uint8Array(
    await sharp(Buffer.from(svg))
      .composite([{ input: noise, blend: "soft-light" }])
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
}

/** The transformations issue 27 names: each must stay within the thresholds of the original or of one of its corner crops. */
export const VARIANTS: Record<string, (photo: Uint8Array) => Promise<Uint8Array>> = {
  "re-encoded at quality 60": async (photo) => new Uint8Array(await sharp(photo).jpeg({ quality: 60 }).toBuffer()),
  "resized to half": async (photo) => {
    const { width = 0 } = await sharp(photo).metadata();
    return new Uint8Array(
      await sharp(photo)
        .resize(Math.round(width / 2))
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  },
  "cropped by 5 %": async (photo) => {
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    // 5 % off each dimension, half from each edge (a crop from one side only moves more: docs/adr/0041).
    return new Uint8Array(
      await sharp(photo)
        .extract({ left: Math.round(width * 0.025), top: Math.round(height * 0.025), width: Math.round(width * 0.95), height: Math.round(height * 0.95) })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  },
  "cropped by 5 % from one corner": async (photo) => {
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    // 5 % of each dimension off the right and bottom edges: the scene moves in the frame (docs/adr/0052).
    return new Uint8Array(
      await sharp(photo)
        .extract({ left: 0, top: 0, width: Math.round(width * 0.95), height: Math.round(height * 0.95) })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  },
  "cropped by 5 % from the other corner": async (photo) => {
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    const [left, top] = [Math.round(width * 0.05), Math.round(height * 0.05)];
    return new Uint8Array(
      await sharp(photo)
        .extract({ left, top, width: width - left, height: height - top })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  },
  "converted to PNG": async (photo) => new Uint8Array(await sharp(photo).png().toBuffer()),
};
